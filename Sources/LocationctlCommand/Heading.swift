import ArgumentParser
import CoreLocation
import CoreLocationRuntime
import Foundation
import CoreLocationEngine
import CoreLocationSources

extension LocationCtl {
    struct Heading: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "heading",
            abstract: "Print headings as they arrive, as startUpdatingHeading() delivers them.",
            discussion: """
                Reads the first IIO magnetometer under /sys (tilt-compensated with an IIO accelerometer when \
                there is one), or a simulated device: turning flat on a table (--rotate, implied by \
                --simulate LAT,LON), or following a simulated route's course (--simulate ROUTE|GPX; headings \
                then come with the route's fixes, which need location authorization). True heading needs a \
                location: with --simulate the simulated position is used.

                Examples:
                  locationctl heading --simulate 64.1,-21.9 --limit 10
                  locationctl heading --simulate drive --speed 5
                  locationctl heading --rotate 45 --filter 10 --format json
                  locationctl heading --sysfs-root /tmp/fake-sys --orientation landscapeLeft
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Simulate a device turning at this rate (degrees per second, < 0 anticlockwise).", valueName: "deg/s"))
        var rotate: Double?

        @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Where sysfs is mounted.", valueName: "path"))
        var sysfsRoot: String = "/sys"

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "headingFilter in degrees; -1 (kCLHeadingFilterNone) for every change.",
                valueName: "deg"))
        var filter: Double = 1

        @Option(
            help: "headingOrientation: portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown.")
        var orientation: String = "portrait"

        @Option(help: "Stop after this many headings.")
        var limit: Int?

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        static let orientations: [String: CLDeviceOrientation] = [
            "portrait": .portrait, "portraitUpsideDown": .portraitUpsideDown, "landscapeLeft": .landscapeLeft,
            "landscapeRight": .landscapeRight, "faceUp": .faceUp, "faceDown": .faceDown,
        ]

        func validate() throws {
            if let limit, limit <= 0 { throw ValidationError("--limit must be a positive number, got \(limit)") }
            if let rotate, !rotate.isFinite { throw ValidationError("--rotate must be a number of degrees per second") }
            guard filter.isFinite else { throw ValidationError("--filter must be a number of degrees") }
            guard Self.orientations[orientation] != nil else {
                throw ValidationError(
                    "--orientation must be one of \(Self.orientations.keys.sorted().joined(separator: ", "))")
            }
            guard format == .text || format == .json else { throw ValidationError("heading prints text or json") }
        }

        @MainActor
        mutating func run() async throws {
            // True heading's location: locationd's when no source is named and it answers, as `track`.
            let installed = try source.installRuntime(throughDaemon: true)
            let runtime = installed.runtime
            // A compass is live: it ticks on the real clock even while a route replays on its own timeline.
            let clock: any Scheduler = runtime.scheduler is ReplayScheduler ? DispatchScheduler() : runtime.scheduler
            let headingSource: (any HeadingSource)?
            let scenario = try source.simulate.map { try SourceOptions.scenario($0) }
            if rotate == nil, let scenario, scenario.isRoute {
                // A simulated route: the compass follows its course (true heading = course).
                let course = CourseHeadingSource()
                runtime.observeSources { _, event in
                    if case .fix(let fix) = event { course.follow(fix) }
                }
                headingSource = course
            } else if rotate != nil || source.simulate != nil {
                headingSource = SimulatedHeadingSource(rate: rotate ?? 10, scheduler: clock)
            } else {
                let store = MagnetometerCalibrationStore(directory: MagnetometerCalibrationStore.defaultDirectory())
                headingSource = IIOHeadingSource.discover(
                    sysfsRoot: sysfsRoot, scheduler: clock, store: store)
            }
            guard let headingSource else {
                try fail(NoHeadingSource(root: sysfsRoot), code: ExitCodes.noLocation)
            }
            HeadingRuntime.installShared(HeadingRuntime(source: headingSource, scheduler: clock))
            printError("Heading source: \(headingSource.name)")

            let bridge = HeadingBridge()
            let manager = CLLocationManager()
            manager.delegate = bridge
            manager.headingFilter = filter
            manager.headingOrientation = Self.orientations[orientation] ?? .portrait
            manager.startUpdatingHeading()
            var printed = 0
            var askedLocation = false
            loop: for await event in bridge.events {
                switch event {
                case .authorization(let status):
                    // True heading needs a location; ask only when a location source exists.
                    guard installed.canLocate else { break }
                    if status.isAuthorized {
                        manager.startUpdatingLocation()
                    } else if status == .notDetermined, !askedLocation {
                        askedLocation = true
                        manager.requestWhenInUseAuthorization()
                    }
                case .heading(let heading):
                    print(render(heading))
                    printed += 1
                    if let limit, printed >= limit { break loop }
                case .failure:
                    printError("kCLErrorHeadingFailure: the heading could not be determined (see the log).")
                case .calibration:
                    printError("Heading accuracy is poor: turn the device in a figure of eight to calibrate.")
                }
            }
            manager.stopUpdatingHeading()
            manager.stopUpdatingLocation()
        }

        private func render(_ heading: CLHeading) -> String {
            if format == .json {
                let fields: [String: Double] = [
                    "magneticHeading": heading.magneticHeading, "trueHeading": heading.trueHeading,
                    "headingAccuracy": heading.headingAccuracy, "x": heading.x, "y": heading.y, "z": heading.z,
                    "timestamp": heading.timestamp.timeIntervalSince1970,
                ]
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return (try? encoder.encode(fields)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
            }
            let trueText = heading.trueHeading < 0 ? "   —   " : String(format: "%6.1f°", heading.trueHeading)
            let accuracy =
                heading.headingAccuracy < 0 ? "uncalibrated" : String(format: "±%.1f°", heading.headingAccuracy)
            return String(format: "magnetic %6.1f°  true ", heading.magneticHeading) + trueText + "  " + accuracy
                + String(format: "  x %+7.2f y %+7.2f z %+7.2f µT  ", heading.x, heading.y, heading.z)
                + ISO8601DateFormatter().string(from: heading.timestamp)
        }
    }
}

/// Turns heading delegate calls into an async stream for the command (main actor).
final class HeadingBridge: NSObject, CLLocationManagerDelegate, Sendable {
    enum Event {
        case authorization(CLAuthorizationStatus)
        case heading(CLHeading)
        case failure
        case calibration
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    override init() {
        (events, continuation) = AsyncStream<Event>.makeStream()
        super.init()
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        continuation.yield(.authorization(manager.authorizationStatus))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        continuation.yield(.heading(newHeading))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        if (error as? CLError)?.code == .headingFailure { continuation.yield(.failure) }
    }

    func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool {
        continuation.yield(.calibration)
        return true
    }
}

struct NoHeadingSource: Error, CustomStringConvertible {
    var root: String
    var description: String {
        """
        No heading source: no IIO magnetometer (in_magn_x_raw) under \(root)/bus/iio/devices.
        Simulate one with --rotate 10 (degrees per second) or --simulate LAT,LON.
        """
    }
}

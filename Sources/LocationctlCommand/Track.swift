import ArgumentParser
import CoreLocation
import Foundation

extension LocationCtl {
    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "track",
            abstract: "Print locations as they arrive, as startUpdatingLocation() delivers them.",
            discussion: """
                Runs until --limit locations were printed, the simulated route ends, or you press Ctrl-C.

                Examples:
                  locationctl track --simulate drive
                  locationctl track --simulate run --speed 20 --distance-filter 50 --format geojson > run.geojson
                  locationctl track --simulate bike --speed max --format csv --limit 100
                  locationctl track --simulate 48.8584,2.2945 --noise 7 --limit 10
                  locationctl track --simulate walk.gpx --speed 20 --auto-pause --activity fitness --status
                  locationctl track --simulate drive.gpx --imu drive.imu.csv --speed max --format json

                --auto-pause sets pausesLocationUpdatesAutomatically (off here, unlike Apple's default, so that \
                a tracking tool prints every fix unless asked): after standing still for the activity's time \
                (other 3 min, automotive 5, fitness 2, other navigation 5, airborne 10) updates pause and the \
                receiver is powered down but for a look every 30–60 s; moving 100 m away resumes them. Both \
                are reported on standard error.

                Replays (--simulate routes, nmea: files) run on the recording's timeline: --speed only \
                decides how fast that timeline passes, so every speed (max too) gives the same fixes, pauses \
                and times, which are the recording's. A built-in route gives a fix every second, \
                interpolated between its recorded points (--rate HZ to change it; --rate recorded, or \
                --speed max, for the recorded points only); a GPX file gives its own points unless --rate \
                is given.

                --imu replays the drive's IMU recording beside its GPX or NMEA replay, on the same timeline: \
                fixes are fused with it (marked [fused]) and dead-reckoned for up to 60 s through gaps in the \
                GNSS recording (docs/imu-recording-format.md, decision 0095).
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(help: "How accurate the locations should be.")
        var accuracy: AccuracyChoice = .best

        @Option(
            name: .customLong("distance-filter"), parsing: .unconditional,
            help: ArgumentHelp(
                "Metres to move before the next location; -1 (kCLDistanceFilterNone) for every location.",
                valueName: "m"))
        var distanceFilter: Double?

        @Option(help: "Stop after this many locations.")
        var limit: Int?

        @Option(help: "Output format.")
        var format: OutputFormat = .text

        @Flag(help: "At the end, print the engine's status (sources, on-time) to standard error.")
        var status = false

        @Flag(name: .customLong("auto-pause"), help: "Pause updates automatically while standing still.")
        var autoPause = false

        @Option(help: "The activity type, which sets the automatic-pause thresholds.")
        var activity: ActivityChoice = .other

        func validate() throws {
            if let limit, limit <= 0 { throw ValidationError("--limit must be a positive number, got \(limit)") }
            // Apple's kCLDistanceFilterNone is -1; other negative distances mean nothing.
            if let distanceFilter, !distanceFilter.isFinite || (distanceFilter < 0 && distanceFilter != kCLDistanceFilterNone) {
                throw ValidationError(
                    "--distance-filter must be a distance in metres ≥ 0, or -1 (kCLDistanceFilterNone), got \(distanceFilter)")
            }
        }

        @MainActor
        mutating func run() async throws {
            var session = try ManagerSession(source: source, accuracy: accuracy)
            let (runtime, bridge, manager, installed) = (session.runtime, session.bridge, session.manager, session.installed)
            bridge.countDeliveries(in: runtime.flow)
            runtime.observeSources { id, event in
                if event == .finished { bridge.sourceFinished(after: runtime.flow) }
                // Why a live source has nothing, said first (gpsd down: "connection refused at…"; no IP database:
                // the path looked at and how to install one).
                if case .unavailable(let reason) = event, let kind = installed.kind(of: id), kind == "gpsd" || kind == "ip" {
                    bridge.sourceProblem(reason)
                }
            }
            manager.distanceFilter = distanceFilter ?? kCLDistanceFilterNone
            manager.pausesLocationUpdatesAutomatically = autoPause
            manager.activityType = activity.activityType
            var writer = LocationWriter(format: format)
            var started = false
            var printed = 0
            defer {
                if status, let engine = runtime.engineStatus() { printStatus(engine) }
            }
            loop: for await event in bridge.events {
                // Lines go out in one write once the events delivered so far are taken (a replay at
                // full speed: many lines a write; a live source: each line as it comes).
                defer { if bridge.isCaughtUp { writer.flush() } }
                switch event {
                case let .authorization(status):
                    let authorized: Bool
                    do {
                        authorized = try session.isAuthorized(status)
                    } catch {
                        if started { writer.finish() }
                        throw error
                    }
                    if authorized, !started {
                        started = true
                        writer.begin()
                        manager.startUpdatingLocation()
                    }
                case let .locations(locations):
                    for location in locations {
                        writer.write(location)
                        printed += 1
                        if let limit, printed >= limit { break loop }
                    }
                case let .failure(error):
                    if error.code == .denied, started { writer.finish() }
                    try session.failIfDenied(error)
                    writer.flush()
                    printError("kCLErrorLocationUnknown: no fix for a while; still trying.")
                case let .paused(isPaused):
                    writer.flush()
                    printError(
                        isPaused
                            ? "paused: standing still; the receiver is off but for a look now and then"
                            : "resumed: moved away from where updates paused")
                case .sourceFinished:
                    break loop
                case let .sourceProblem(reason):
                    writer.flush()
                    printError(reason)
                case .tick:
                    break
                }
            }
            manager.stopUpdatingLocation()
            if started { writer.finish() }
            try installed.failIfNoNMEA()
        }
    }
}

/// `--activity`: `CLActivityType`.
enum ActivityChoice: String, ExpressibleByArgument, CaseIterable {
    case other, automotive, fitness, navigation, airborne

    var activityType: CLActivityType {
        switch self {
        case .other: .other
        case .automotive: .automotiveNavigation
        case .fitness: .fitness
        case .navigation: .otherNavigation
        case .airborne: .airborne
        }
    }
}

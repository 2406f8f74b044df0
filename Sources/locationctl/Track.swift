import ArgumentParser
import CoreLocation
import Foundation

extension LocationCtl {
    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print locations as they arrive, as startUpdatingLocation() delivers them.",
            discussion: """
                Runs until --limit locations were printed, the simulated route ends, or you press Ctrl-C.

                Examples:
                  locationctl track --simulate drive
                  locationctl track --simulate run --speed 20 --distance-filter 50 --format geojson > run.geojson
                  locationctl track --simulate bike --speed max --format csv --limit 100
                  locationctl track --simulate 48.8584,2.2945 --noise 7 --limit 10
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(help: "How accurate the locations should be.")
        var accuracy: AccuracyChoice = .best

        @Option(name: .customLong("distance-filter"), help: ArgumentHelp("Metres to move before the next location.", valueName: "m"))
        var distanceFilter: Double?

        @Option(help: "Stop after this many locations.")
        var limit: Int?

        @Option(help: "Output format.")
        var format: OutputFormat = .text

        @Flag(help: "At the end, print the engine's status (sources, on-time) to standard error.")
        var status = false

        func validate() throws {
            if let limit, limit <= 0 { throw ValidationError("--limit must be a positive number, got \(limit)") }
            if let distanceFilter, !distanceFilter.isFinite || distanceFilter < 0 {
                throw ValidationError("--distance-filter must be a distance in metres ≥ 0, got \(distanceFilter)")
            }
        }

        @MainActor
        mutating func run() async throws {
            var session = try ManagerSession(source: source, accuracy: accuracy)
            let (runtime, bridge, manager) = (session.runtime, session.bridge, session.manager)
            runtime.observeSources { _, event in
                if event == .finished { bridge.sourceFinished() }
            }
            manager.distanceFilter = distanceFilter ?? kCLDistanceFilterNone
            var writer = LocationWriter(format: format)
            var started = false
            var printed = 0
            defer {
                if status { printStatus(runtime.status()) }
            }
            loop: for await event in bridge.events {
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
                    printError("kCLErrorLocationUnknown: no fix for a while; still trying.")
                case .sourceFinished:
                    break loop
                }
            }
            manager.stopUpdatingLocation()
            if started { writer.finish() }
        }
    }
}

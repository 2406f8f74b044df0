import ArgumentParser
import CoreLocation
import Foundation

extension LocationCtl {
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one location, as requestLocation() delivers it.",
            discussion: """
                Waits up to 10 seconds for a fix as good as --accuracy asks, then prints the best one \
                seen, or fails with kCLErrorLocationUnknown.

                Examples:
                  locationctl locate --simulate 48.8584,2.2945
                  locationctl locate --simulate drive --accuracy 100m --format json
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(help: "How accurate the location must be.")
        var accuracy: AccuracyChoice = .best

        @Option(help: "Output format.")
        var format: OutputFormat = .text

        @MainActor
        mutating func run() async throws {
            let runtime = try source.installRuntime()
            if runtime.sources.isEmpty {
                // Authorization cannot help without a source: say what is missing at once.
                try fail(NoLocation(hasSource: false), code: ExitCodes.noLocation)
            }
            let bridge = ManagerBridge()
            let manager = CLLocationManager()
            manager.delegate = bridge
            manager.desiredAccuracy = accuracy.desiredAccuracy
            var writer = LocationWriter(format: format)
            var requested = false
            var asked = false
            for await event in bridge.events {
                switch event {
                case let .authorization(status):
                    if status.isAuthorized, !requested {
                        requested = true
                        manager.requestLocation()
                    } else if status == .notDetermined, !asked {
                        asked = true
                        manager.requestWhenInUseAuthorization()
                        if manager.authorizationStatus == .notDetermined && !runtime.authorization.isRequestInProgress {
                            try fail(NotDetermined(), code: ExitCodes.notAuthorized)
                        }
                    } else if status == .denied || status == .restricted {
                        try fail(NotAuthorized(status: status), code: ExitCodes.notAuthorized)
                    }
                case let .locations(locations):
                    guard let location = locations.last else { continue }
                    writer.begin()
                    writer.write(location)
                    writer.finish()
                    return
                case let .failure(error):
                    if error.code == .denied {
                        try fail(NotAuthorized(status: manager.authorizationStatus), code: ExitCodes.notAuthorized)
                    }
                    try fail(NoLocation(hasSource: !runtime.sources.isEmpty), code: ExitCodes.noLocation)
                case .sourceFinished:
                    continue
                }
            }
        }
    }
}

func fail(_ error: any Error, code: ExitCode) throws -> Never {
    printError("\(error)")
    throw code
}

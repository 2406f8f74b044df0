import ArgumentParser
import CoreLocation
import Foundation

extension LocationCtl {
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "locate",
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
            var session = try ManagerSession(source: source, accuracy: accuracy)
            let (runtime, bridge, installed) = (session.runtime, session.bridge, session.installed)
            // Why the IP source has nothing (no database: the path looked at and how to install one), said when it
            // says so rather than after the 10 s wait.
            runtime.observeSources { id, event in
                if case .unavailable(let reason) = event, installed.kind(of: id) == "ip" {
                    bridge.sourceProblem(reason)
                }
            }
            var writer = LocationWriter(format: format)
            var requested = false
            for await event in session.bridge.events {
                switch event {
                case let .authorization(status):
                    if try session.isAuthorized(status), !requested {
                        requested = true
                        session.manager.requestLocation()
                    }
                case let .locations(locations):
                    guard let location = locations.last else { continue }
                    writer.begin()
                    writer.write(location)
                    writer.finish()
                    return
                case let .failure(error):
                    try session.failIfDenied(error)
                    try fail(NoLocation(hasSource: true), code: ExitCodes.noLocation)
                case let .sourceProblem(reason):
                    printError(reason)
                case .sourceFinished, .paused, .tick:
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

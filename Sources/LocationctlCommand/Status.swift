import ArgumentParser
import CoreLocation
import Foundation
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage

extension LocationCtl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the sources, their clients and how long each source was powered.",
            discussion: """
                Starts the configured sources for --probe seconds with one best-accuracy client, then \
                prints what the engine saw. (Until the system daemon arrives, each process has its own \
                engine, so this shows this process's view.)

                Examples:
                  locationctl status --simulate drive
                  locationctl status --simulate run --probe 5 --format json
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(help: ArgumentHelp("Seconds to run the sources before reporting.", valueName: "s"))
        var probe: Double = 3

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        func validate() throws {
            guard probe >= 0, probe <= 3600 else { throw ValidationError("--probe must be between 0 and 3600 seconds") }
            guard format == .text || format == .json else { throw ValidationError("status prints text or json") }
        }

        @MainActor
        mutating func run() async throws {
            if source.isDefault, let daemon = LocationdClient.connect() {
                defer { daemon.close() }
                guard case let .status(status) = try LocationdClient.request(daemon, .status) else { return }
                try LocationdClient.printStatus(status, json: format == .json)
                // The apps relaunched for their events, and what became of those events (issue 11).
                if format == .text, case let .background(background) = try LocationdClient.request(daemon, .background) {
                    LocationdClient.printBackgroundSummary(background)
                }
                return
            }
            let runtime = try source.installRuntime().runtime
            guard let status = try await runtime.probeStatus(label: "locationctl status", seconds: probe) else { return }
            if format == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                FileHandle.standardOutput.write(try encoder.encode(status) + Data("\n".utf8))
                return
            }
            print(render(status))
            print("Authorization database: \(AuthorizationStore.defaultPath())")
            print("This app (locationctl): \(describe(runtime.authorization.authorization))")
        }
    }
}

@MainActor
func printStatus(_ status: EngineStatus) {
    printError(render(status))
}

func render(_ status: EngineStatus) -> String {
    var lines: [String] = []
    if status.sources.isEmpty {
        lines.append("Sources: none configured (use --simulate ROUTE|FILE|LAT,LON or CORELOCATION_SIMULATE)")
    } else {
        lines.append("Sources:")
        for s in status.sources {
            var line = "  \(s.descriptor.id)  kind \(s.descriptor.kind)  expected ±\(Int(s.descriptor.expectedAccuracy)) m"
            line += "  power \(s.descriptor.powerCost) mW  \(s.isPowered ? "on" : "off")"
            line += "  on-time \(String(format: "%.1f", s.onTime)) s  fixes \(s.fixCount)"
            if let age = s.lastFixAge { line += "  last fix \(String(format: "%.1f", age)) s ago" }
            if let origin = s.origin { line += "  from \(origin)" }
            if s.isFinished { line += "  (finished)" } else if !s.isAvailable { line += "  (unavailable: \(s.lastProblem ?? "?"))" }
            lines.append(line)
        }
    }
    lines.append("Clients: \(status.clients.isEmpty ? "none" : "")")
    for c in status.clients {
        var line = "  \(c.id)  \(c.label)  \(describe(c.authorization))"
        if let updates = c.updates { line += "  updating (accuracy \(updates.desiredAccuracy) m, filter \(updates.distanceFilter) m)" }
        if c.isPaused { line += "  paused (standing still)" }
        if c.isRequestingLocation { line += "  requesting one location" }
        lines.append(line)
    }
    lines.append("Stationary: \(status.isStationary ? "yes" : "no")")
    return lines.joined(separator: "\n")
}

func describe(_ authorization: ClientAuthorization) -> String {
    "\(authorization.level.rawValue), \(authorization.accuracy.rawValue) accuracy"
}

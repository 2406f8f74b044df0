import ArgumentParser
import CoreLocationEngine
import CoreLocationReporting
import CoreLocationSources
import CoreLocationStorage
import Foundation

extension LocationCtl {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Share a position: decide which fixes to upload, queue them durably, upload them.",
            discussion: """
                Prints each upload decision, then a summary (fixes seen, uploaded, uploads per moving hour, \
                max and p95 SED, time settled, queue state).

                Examples:
                  locationctl report --simulate drive --speed max --dry-run
                  locationctl report --simulate walk.gpx --speed 20 --to 'owntracks+http://host:8083/pub?d=phone' --credentials ~/.config/owntracks.cred
                  locationctl report --simulate drive --to 'osmand+http://traccar:5055/?id=123456' --policy recipe

                Policies: bounded (default) keeps the uploaded track within --epsilon metres of every fix while \
                moving (synchronized Euclidean distance), the newest report within --freshness metres of the \
                user, and reports once on arrival and once on departure, silent in between; recipe is the \
                classic iOS recipe (distance filter from the speed), for comparison. See docs/decisions/0022.

                The queue (--queue, default next to the location database) survives a kill: run the command \
                again and what was queued is sent first. A refused login or a wrong server stops the uploads \
                (exit 77 or 78) and keeps the queue.

                Without --simulate the reporter shares the live position (the sources of --source, sources.conf \
                or gpsd; through locationd when it runs) until SIGINT or SIGTERM. Under locationd it is the app \
                "locationctl report": it asks for Always authorization, and monitors significant changes and a \
                region around its last report, so that locationd starts it again after a kill when you move, \
                and the queue goes on (decision 0045).
                """
        )

        @Option(
            name: .long, parsing: .unconditional,
            help: ArgumentHelp(
                "A built-in route (\(BuiltInRoute.names.joined(separator: ", "))) or a GPX file; without it, the live position.",
                valueName: "route|file"))
        var simulate: String?

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp("A real source for the live position, repeatable (as for track).", valueName: "url"))
        var sources: [String] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("Replay speed, or 'max' (default 1).", valueName: "x"))
        var speed: ReplaySpeed?

        @Option(help: ArgumentHelp(
            "Where to upload: owntracks+http(s)://[user@]host[:port]/pub[?u=USER&d=DEVICE] or "
                + "osmand+http(s)://host[:port]/?id=DEVICE.", valueName: "url"))
        var to: String?

        @Option(help: ArgumentHelp(
            "A file holding user:password for the server, readable by you alone (mode 0600); or set "
                + "CORELOCATION_REPORT_CREDENTIALS. Never in --to: every user sees a command line.", valueName: "file"))
        var credentials: String?

        @Option(help: "The upload policy.")
        var policy: PolicyChoice = .bounded

        @Option(help: ArgumentHelp("SED bound in metres (bounded policy; 25 is the low-power setting).", valueName: "m"))
        var epsilon: Double = 10

        @Option(help: ArgumentHelp("Freshness bound in metres, or 'off' (bounded policy).", valueName: "m|off"))
        var freshness: Freshness = Freshness(value: 50)

        @Option(help: ArgumentHelp("Heartbeat while settled, seconds (at least 3600; default none).", valueName: "s"))
        var heartbeat: Double?

        @Flag(inversion: .prefixedNo, help: ArgumentHelp(
            "Settle stays whose fixes wander 20-150 m around a building but do not keep a direction (bounded "
                + "policy, decision 0064); --no-wandering-stays: only stillness, dwell, visits and silence settle."))
        var wanderingStays = true

        @Flag(name: .customLong("dry-run"), help: "Decide and print, but queue and upload nothing.")
        var dryRun = false

        @Option(help: ArgumentHelp("The queue file (default: report-queue.sqlite next to the location database).",
                                   valueName: "path"))
        var queue: String?

        @Option(help: ArgumentHelp("The queue's capacity in reports (thinned beyond it).", valueName: "n"))
        var capacity = 100_000

        @Option(help: ArgumentHelp("Device name (OwnTracks X-Limit-D, OsmAnd id) unless the URL gives one.",
                                   valueName: "name"))
        var device = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "locationctl"

        @Option(help: ArgumentHelp("Seconds to wait for the server's answer.", valueName: "s"))
        var timeout: Double = 30

        @Option(help: "Output format: text, or json (one object per decision, then the summary).")
        var format: ReportFormat = .text

        func validate() throws {
            if to == nil, !dryRun { throw ValidationError("--to URL is needed (or --dry-run)") }
            if let to {
                let endpoint: ReportEndpoint
                do {
                    endpoint = try ReportEndpoint.parse(to)
                } catch {
                    throw ValidationError("--to \(error)")
                }
                if endpoint.password != nil {
                    throw ValidationError(
                        "--to carries a password: every user sees a command line (ps), and locationd would store it to "
                            + "start the reporter again. Put user:password in a file only you can read and pass "
                            + "--credentials FILE, or set CORELOCATION_REPORT_CREDENTIALS")
                }
            }
            do {
                _ = try ReportCredentials.load(file: credentials, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError("\(error)")
            }
            guard epsilon > 0, epsilon.isFinite else { throw ValidationError("--epsilon must be > 0 metres, got \(epsilon)") }
            if let value = freshness.value, !(value > 0) {
                throw ValidationError("--freshness must be > 0 metres or 'off'")
            }
            if let heartbeat, !(heartbeat >= 3600) {
                throw ValidationError("--heartbeat must be at least 3600 s (at most hourly), got \(heartbeat)")
            }
            if capacity < 3 { throw ValidationError("--capacity must be at least 3") }
            guard timeout > 0 else { throw ValidationError("--timeout must be > 0 s") }
            guard let simulate else {
                if speed != nil { throw ValidationError("--speed applies to --simulate, not to the live position") }
                do {
                    _ = try liveSourceOptions()
                } catch {
                    throw ValidationError(SourceOptions.message(for: error))
                }
                return
            }
            if !sources.isEmpty { throw ValidationError("--source and --simulate exclude each other") }
            do {
                _ = try Self.route(simulate)
            } catch {
                throw ValidationError("--simulate \(simulate): \(error)")
            }
        }

        static func route(_ text: String) throws -> SimulatedRoute {
            switch try SimulationScenario.parse(text) {
            case .route(let route): return route
            case .fixed: throw ValidationError("report needs a route (a built-in one or a GPX file), not a fixed point")
            // Only `parse(_:streamingFiles: true)` gives a streamed file; the reporter reads its route whole.
            case .gpxFile: throw ValidationError("report cannot replay a streamed GPX file")
            }
        }

        func makePolicy() -> ReportPolicy {
            switch policy {
            case .recipe:
                return .recipe(RecipePolicy())
            case .bounded:
                var parameters = BoundedPolicy.Parameters()
                parameters.epsilon = epsilon
                parameters.freshness = freshness.value
                parameters.heartbeatInterval = heartbeat
                if !wanderingStays { parameters.stays = nil }
                return .bounded(BoundedPolicy(parameters: parameters))
            }
        }

        mutating func run() async throws {
            guard let simulate else { return try await runLive() }
            let route = try Self.route(simulate)
            let fixes = try ReportReplay.fixes(of: route)
            var session = try ReportSession(command: self)
            let pace = speed?.value ?? 1
            let clock = ContinuousClock()
            let start = clock.now
            let wallStart = Date()
            let firstTime = fixes.first?.timestamp
            for var fix in fixes {
                if pace.isFinite, let firstTime {
                    let offset = fix.timestamp.timeIntervalSince(firstTime)
                    // A silence that runs out before this fix is decided at its own moment, as live.
                    if let deadline = session.nextTick, deadline < wallStart.addingTimeInterval(offset) {
                        let due = deadline.timeIntervalSince(wallStart)
                        try await clock.sleep(until: start.advanced(by: .seconds(due / pace)))
                        try session.passTime(to: deadline)
                    }
                    try await clock.sleep(until: start.advanced(by: .seconds(offset / pace)))
                    fix.timestamp = wallStart.addingTimeInterval(offset)
                }
                try await session.handle(fix)
            }
            try await session.finish()
        }
    }
}

enum PolicyChoice: String, ExpressibleByArgument, CaseIterable {
    case bounded, recipe
}

enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// `--freshness M|off`.
struct Freshness: ExpressibleByArgument {
    var value: Double?

    init(value: Double?) { self.value = value }

    init?(argument: String) {
        if argument == "off" {
            value = nil
        } else if let number = Double(argument), number.isFinite {
            value = number
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { value.map { String(Int($0)) } ?? "off" }
}

/// The route's fixes with the recording's own times (or the replay's start plus the offset, for
/// an untimed route).
enum ReportReplay {
    static func fixes(of route: SimulatedRoute) throws -> [Fix] {
        var player = try RoutePlayer(route: route, speed: .infinity)
        return player.advance(to: .infinity, timestamp: Date())
    }
}

import ArgumentParser
import CoreLocation
import CoreLocationRuntime
import CoreLocationDaemonProtocol
import CoreLocationEngine
import Foundation

/// locationctl's way to locationd: the daemon when it answers (unless `CORELOCATION_DAEMON=off`).
enum LocationdClient {
    static func connect(
        environment: [String: String] = ProcessInfo.processInfo.environment, startReading: Bool = true
    ) -> DaemonConnection? {
        if environment["CORELOCATION_DAEMON"] == "off" { return nil }
        let path = DaemonClient.socketPath(environment: environment)
        guard let connection = try? DaemonConnection.connect(path: path, label: "locationctl", timeout: 2) else { return nil }
        if startReading { connection.startReading { _ in } }
        return connection
    }

    /// Sends one request and turns a failure reply into an error.
    static func request(_ connection: DaemonConnection, _ body: DaemonRequest) throws -> DaemonReply {
        let reply = try connection.request(body)
        if case let .failure(error) = reply { throw ValidationError("locationd: \(error.message)") }
        return reply
    }

    /// `locationctl sources` with a daemon: the daemon's live set.
    static func printSources(_ status: DaemonStatus, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(status.sources), as: UTF8.self))
            return
        }
        if status.sources.isEmpty { print("locationd has no source.") }
        for source in status.sources {
            print(
                "\(source.id)  \(source.name)  \(source.powered ? "powered" : "off")  "
                    + "on for \(String(format: "%.1f", source.onTime)) s\(stateText(source))")
        }
    }

    /// `  receiving`, `  unavailable: gpsd: connection refused…`: appended to a source's line.
    /// What a powered source said last, and the device of its last fix where it has several (a modem's).
    static func stateText(_ source: DaemonStatus.Source) -> String {
        var text = ""
        if let state = source.state, source.powered { text = "  \(state)" + (source.detail.map { ": \($0)" } ?? "") }
        if let origin = source.origin { text += "  from \(origin)" }
        return text
    }

    static func printStatus(_ status: DaemonStatus, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
            return
        }
        print("locationd (pid \(status.pid)): location services \(status.servicesEnabled ? "on" : "off"), database \(status.database)")
        print("Sources:")
        if status.sources.isEmpty { print("  none") }
        for source in status.sources {
            print(
                "  \(source.id)  \(source.powered ? "powered" : "off")  "
                    + "on for \(String(format: "%.1f", source.onTime)) s"
                    + stateText(source))
        }
        print("Apps:")
        if status.apps.isEmpty { print("  none connected") }
        for app in status.apps {
            print("  \(app.app) (uid \(app.uid)): \(app.authorization.level.rawValue), \(app.authorization.accuracy.rawValue) accuracy")
            for client in app.clients {
                let services = client.services.isEmpty ? "idle" : client.services.joined(separator: ", ")
                let last = client.lastDelivery.map { String(format: "last delivery at %.1f s", $0) } ?? "no delivery yet"
                print("    pid \(client.pid) \(client.label): \(services); \(last)")
            }
            if let omitted = app.omittedClients { print("    … and \(omitted) more clients") }
        }
        if let omitted = status.omittedApps { print("  … and \(omitted) more apps") }
    }
}

extension LocationdClient {
    /// `locationctl status`'s background lines: each launch target's state and pending events, then
    /// the latest history (launches, refusals, expired events); `locationctl background` has all.
    static func printBackgroundSummary(_ background: BackgroundStatus, historyLines: Int = 5) {
        print("Background:")
        if background.targets.isEmpty { print("  no app is relaunched for its events") }
        for target in background.targets {
            print("  \(target.app) (uid \(target.uid)): \(target.state), \(target.pending) pending")
        }
        for line in background.history.suffix(historyLines) { print("  \(line)") }
    }
}

extension LocationCtl {
    struct Services: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "services",
            abstract: "Switch location services on or off for every app (the Settings app's switch), through locationd.",
            discussion: """
                Off: locationServicesEnabled() is false in every app, the sources are powered down and \
                every app reads its authorization as denied; on restores everything. Needs a running \
                locationd; without one, set CORELOCATION_SERVICES=off for a single app.

                Examples:
                  locationctl services off
                  locationctl services on
                  locationctl services
                """
        )

        enum Switch: String, ExpressibleByArgument { case on, off }

        @Argument(help: "on or off; without it, print the current state.")
        var state: Switch?

        func run() throws {
            guard let connection = LocationdClient.connect() else {
                throw ValidationError("locationd is not running (for one app without it: CORELOCATION_SERVICES=off)")
            }
            defer { connection.close() }
            if let state {
                _ = try LocationdClient.request(connection, .setServices(enabled: state == .on))
                print("Location services: \(state.rawValue)")
            } else {
                print("Location services: \(connection.hello.servicesEnabled ? "on" : "off")")
            }
        }
    }
}

extension LocationCtl.Authorize {
    /// With locationd running, the decision goes through it: running apps hear it at once and
    /// receive no fix after this returns. Returns false when there is no daemon.
    func authorizeThroughDaemon() throws -> Bool {
        guard let daemon = LocationdClient.connect() else { return false }
        defer { daemon.close() }
        // With a daemon running, its database holds the decisions that count; the local one is not read.
        if let defaultPolicy {
            _ = try LocationdClient.request(daemon, .setDefaultPolicy(defaultPolicy.rawValue))
            print("Default policy: \(defaultPolicy.rawValue) (locationd)")
        }
        if list {
            guard case let .decisions(decisions, policy) = try LocationdClient.request(daemon, .decisions) else {
                throw ValidationError("locationd answered the list of decisions with something else")
            }
            printList(decisions.map(AuthorizationDecision.init), defaultPolicy: policy.map(DefaultPolicy.init))
            return true
        }
        guard let app, let decision else { return defaultPolicy != nil }
        _ = try LocationdClient.request(
            daemon, .authorize(app: app, decision: decision.rawValue, accuracy: reduced ? "reduced" : "full"))
        let detail = decision == .deny || decision == .reset ? "" : reduced ? ", approximate location" : ", precise location"
        print("\(app): \(decision == .reset ? "not determined (the app will ask again)" : decision.rawValue + detail) (locationd)")
        return true
    }
}

extension SourceOptions {
    /// No source chosen on the command line: the daemon's view applies.
    var isDefault: Bool { simulate == nil && sources.isEmpty }
}

import ArgumentParser
import CoreLocationDaemonProtocol
import Foundation

extension LocationCtl {
    struct Background: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "background",
            abstract: "Apps locationd starts again for their background events (Background App Refresh).",
            discussion: """
                Without arguments: each app that monitors regions with its launch target (the executable, \
                arguments and working directory recorded when it started monitoring), its state (running, \
                ready, off, replaced, missing, other-user, rate-limited), its pending events, what locationd \
                runs for it meanwhile (significant-changes, visits, session: an interrupted background \
                activity or service session, relaunched at the next location update), then the \
                history (launches, refusals, expired events). `off APP` stops relaunching the app (its \
                events still wait for it, until they expire); `on APP` allows it again. APP is the app \
                id `locationctl status` shows (bundle identifier or executable path).

                Examples:
                  locationctl background
                  locationctl background off com.example.tracker
                  locationctl background on com.example.tracker
                """
        )

        enum Switch: String, ExpressibleByArgument { case on, off }

        @Argument(help: "on or off; without it, list the launch targets.")
        var state: Switch?

        @Argument(help: "The app to switch.")
        var app: String?

        @Flag(help: "Print JSON.")
        var json = false

        func validate() throws {
            if state != nil, app == nil { throw ValidationError("name the app: locationctl background off APP") }
        }

        func run() throws {
            guard let connection = LocationdClient.connect() else { throw ValidationError("locationd is not running") }
            defer { connection.close() }
            if let state, let app {
                _ = try LocationdClient.request(connection, .setBackground(app: app, enabled: state == .on))
                print("Background relaunch of \(app): \(state.rawValue)")
                return
            }
            guard case let .background(status) = try LocationdClient.request(connection, .background) else {
                throw ValidationError("locationd: unexpected reply")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
                return
            }
            print("Launch targets:")
            if status.targets.isEmpty { print("  none") }
            for target in status.targets {
                let services = target.services ?? []
                print(
                    "  \(target.app) (uid \(target.uid)): \(target.state), \(target.pending) pending, "
                        + "\(target.recentLaunches) recent launch(es)"
                        + (services.isEmpty ? "" : ", runs \(services.joined(separator: ", "))"))
                // A reporter recorded before passwords were refused in --to (issue 37) shows none.
                let command = ([target.executable] + target.arguments.map(Self.hidingPasswords))
                    .joined(separator: " ")
                print("    \(target.unit.map { "unit \($0)" } ?? command)  (in \(target.workingDirectory))")
            }
            print("History:")
            if status.history.isEmpty { print("  none") }
            for line in status.history { print("  \(line)") }
        }
    }
}

extension LocationCtl.Background {
    /// `scheme://user:password@host…` with the password replaced by `***`.
    static func hidingPasswords(_ argument: String) -> String {
        guard let scheme = argument.range(of: "://"), let at = argument[scheme.upperBound...].firstIndex(of: "@"),
            let colon = argument[scheme.upperBound..<at].firstIndex(of: ":"),
            !argument[scheme.upperBound..<at].contains("/")
        else { return argument }
        return String(argument[..<argument.index(after: colon)]) + "***" + String(argument[at...])
    }
}

import ArgumentParser
import Foundation
import CoreLocationEngine
import CoreLocationStorage

extension LocationCtl {
    struct Authorize: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "authorize",
            abstract: "Decide what an app may do with your location, as the Settings app does.",
            discussion: """
                An app is named by its bundle identifier (CFBundleIdentifier in its Info.plist) or, \
                without one, by the absolute path of its executable. locationctl itself is `locationctl`.

                Examples:
                  locationctl authorize locationctl when-in-use
                  locationctl authorize com.example.tracker always --reduced
                  locationctl authorize /usr/local/bin/mytool deny
                  locationctl authorize com.example.tracker reset
                  locationctl authorize --list
                  locationctl authorize --default deny
                """
        )

        enum Decision: String, ExpressibleByArgument, CaseIterable {
            case always, whenInUse = "when-in-use", deny, reset
        }

        @Argument(help: "The app: a bundle identifier or an executable's absolute path.")
        var app: String?

        @Argument(help: "always, when-in-use, deny or reset.")
        var decision: Decision?

        @Flag(help: "Grant only approximate locations (Precise: Off).")
        var reduced = false

        @Flag(help: "List every stored decision.")
        var list = false

        @Option(
            name: .customLong("default"),
            help: "The policy for apps without a decision when no terminal can ask: prompt, deny, when-in-use, always."
        )
        var defaultPolicy: DefaultPolicy?

        func validate() throws {
            if list || defaultPolicy != nil {
                if app != nil { throw ValidationError("--list and --default take no app") }
                return
            }
            guard let app, !app.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("Name an app, e.g. `locationctl authorize locationctl when-in-use`, or use --list.")
            }
            guard decision != nil else {
                throw ValidationError("Say what \(app) may do: always, when-in-use, deny or reset.")
            }
            if reduced, decision == .deny || decision == .reset {
                throw ValidationError("--reduced goes with always or when-in-use")
            }
        }

        func run() throws {
            if try authorizeThroughDaemon() { return }
            let store = try AuthorizationStore(path: AuthorizationStore.defaultPath())
            if let recovered = store.recoveredFrom {
                printError("The authorization database was unreadable and was moved aside to \(recovered).")
            }
            if let defaultPolicy {
                try store.setDefaultPolicy(defaultPolicy)
                print("Default policy: \(defaultPolicy.rawValue)")
            }
            if list {
                try printList(store)
                return
            }
            guard let app, let decision else { return }
            switch decision {
            case .reset:
                try store.reset(appID: app)
                print("\(app): not determined (the app will ask again)")
            case .always, .whenInUse, .deny:
                let level: AuthorizationLevel = decision == .always ? .always : decision == .deny ? .denied : .whenInUse
                let previous = try store.decision(for: app)
                try store.save(
                    AuthorizationDecision(
                        appID: app, level: level, accuracy: reduced ? .reduced : .full, decidedAt: Date(),
                        provisional: false, usageDescription: previous?.usageDescription
                    )
                )
                print("\(app): \(decision.rawValue)\(level == .denied ? "" : reduced ? ", approximate location" : ", precise location")")
            }
        }

        private func printList(_ store: AuthorizationStore) throws {
            printList(try store.allDecisions(), defaultPolicy: try store.defaultPolicy())
        }

        func printList(_ decisions: [AuthorizationDecision], defaultPolicy policy: DefaultPolicy?) {
            if decisions.isEmpty {
                print("No decisions stored.")
            }
            for d in decisions {
                var line = "\(d.appID)  \(d.level.rawValue)"
                if d.level == .whenInUse || d.level == .always { line += "  \(d.accuracy.rawValue) accuracy" }
                line += "  since \(d.decidedAt.formatted(.iso8601))"
                if let usage = d.usageDescription { line += "  “\(usage)”" }
                print(line)
            }
            if let policy {
                print("Default policy: \(policy.rawValue)")
            }
        }
    }
}

extension DefaultPolicy: ExpressibleByArgument {}

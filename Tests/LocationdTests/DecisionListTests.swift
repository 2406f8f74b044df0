import Foundation
import Testing

/// `locationctl authorize --list` and `--default` with a daemon running go to the daemon, whose database
/// holds the decisions that count (they read and wrote the per-user database before, so the list missed
/// every decision an app made through the daemon, and the default policy never reached it).
@Suite struct DecisionListTests {
    @Test func theListIsTheDaemonsAndTheDefaultPolicyReachesIt() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        let empty = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(empty.stdout.contains("No decisions stored."), "\(empty)")

        #expect(try await harness.run("locationctl", ["authorize", "org.example.listed", "always", "--reduced"]).status == 0)
        #expect(try await harness.run("locationctl", ["authorize", "--default", "deny"]).status == 0)
        let list = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(list.stdout.contains("org.example.listed  always  reduced accuracy"), "\(list)")
        #expect(list.stdout.contains("Default policy: deny"), "\(list)")

        // The default policy is the daemon's: an app nobody decided about, with no terminal and no agent, is
        // denied (the built-in policy would allow it: the only source is simulated).
        let plist = try harness.infoPlist(bundle: "org.example.undecided")
        let app = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(app.status == 4, "kCLErrorDenied: \(app)")
        // And the local per-user database was not touched.
        let local = try await harness.run("locationctl", ["authorize", "--list"], extra: ["CORELOCATION_DAEMON": "off"])
        #expect(!local.stdout.contains("org.example.listed"), "\(local)")
    }

    /// Other users are a boundary (decision 0011): uid 65534 sees none of root's decisions and may not set the
    /// system-wide default policy.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "needs root and setpriv (Debian package util-linux)"))
    func anotherUserSeesOnlyItsOwnDecisions() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        _ = chmod(harness.directory, 0o755)
        #expect(try await harness.run("locationctl", ["authorize", "org.example.roots", "when-in-use"]).status == 0)
        let locationctl = DaemonHarness.products.appendingPathComponent("locationctl").path
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", locationctl]
        let decided = try await harness.run("/usr/bin/setpriv", nobody + ["authorize", "org.example.nobodys", "deny"])
        #expect(decided.status == 0, "\(decided)")
        let theirs = try await harness.run("/usr/bin/setpriv", nobody + ["authorize", "--list"])
        #expect(theirs.stdout.contains("org.example.nobodys  denied"), "\(theirs)")
        #expect(!theirs.stdout.contains("org.example.roots"), "\(theirs)")
        let refused = try await harness.run("/usr/bin/setpriv", nobody + ["authorize", "--default", "always"])
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("only root or the daemon's user"), "\(refused)")
        let roots = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(roots.stdout.contains("65534:org.example.nobodys  denied"), "\(roots)")
        #expect(!roots.stdout.contains("Default policy: always"), "\(roots)")
    }
}

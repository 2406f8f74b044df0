import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37, item 4's last part (decision 0092): the administrator's default `deny` is a ceiling for every other
/// user of the system daemon. Before it, uid 65534 authorized its own app `always` and got fixes over root's
/// default `deny`. Real locationd (as root, the administrator), real locationctl and apps run as uid 65534.
@Suite(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
    "needs root and setpriv (Debian package util-linux)"))
struct AdministratorCeilingTests {
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    static var locationctl: String { DaemonHarness.products.appendingPathComponent("locationctl").path }
    /// What the daemon names uid 65534's app: its executable, as the kernel reads it (no Info.plist is taken from
    /// another user's environment).
    static var probe: String {
        DaemonHarness.products.appendingPathComponent("CoreLocationProbe").resolvingSymlinksInPath().path
    }

    func asNobody(_ harness: DaemonHarness, _ tool: String, _ arguments: [String]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await harness.run("/usr/bin/setpriv", Self.nobody + [tool] + arguments)
    }

    /// A decision the user made before the administrator's `deny` stops applying, and comes back when the ceiling
    /// is lifted; under it the user may lower but not raise; root's own apps are not bound.
    @Test func theAdministratorsDenyBindsAnotherUsersDecisions() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        _ = chmod(harness.directory, 0o755)

        // Before any ceiling: the user's own decision gives their app a fix (the run is not refused for another
        // reason, so the denial below is the ceiling's).
        let granted = try await asNobody(harness, Self.locationctl, ["authorize", Self.probe, "always"])
        #expect(granted.status == 0, "\(granted)")
        let before = try await asNobody(harness, Self.probe, ["runloop", "10"])
        #expect(before.status == 0, "a fix: \(before)")

        #expect(try await harness.run("locationctl", ["authorize", "--default", "deny"]).status == 0)
        // The stored `always` no longer counts: restricted, requestLocation answers kCLErrorDenied (on main: a fix).
        let bound = try await asNobody(harness, Self.probe, ["runloop", "10"])
        #expect(bound.status == 4, "kCLErrorDenied: \(bound)")
        #expect(bound.stdout.contains("authorization 1 "), "restricted: \(bound)")
        // Nor may the user grant it again (on main: accepted).
        let raised = try await asNobody(harness, Self.locationctl, ["authorize", Self.probe, "when-in-use"])
        #expect(raised.status != 0, "\(raised)")
        #expect(raised.stderr.contains("the administrator's default policy is deny"), "\(raised)")
        // The administrator's own apps are not bound.
        #expect(try await harness.run("locationctl", ["authorize", Self.probe, "always"]).status == 0)
        let roots = try await harness.run("CoreLocationProbe", ["runloop", "10"])
        #expect(roots.status == 0, "root's app: \(roots)")

        // Lifted: the user's decision, kept all along, applies again.
        #expect(try await harness.run("locationctl", ["authorize", "--default", "prompt"]).status == 0)
        let lifted = try await asNobody(harness, Self.probe, ["runloop", "10"])
        #expect(lifted.status == 0, "a fix again: \(lifted)")
        let list = try await asNobody(harness, Self.locationctl, ["authorize", "--list"])
        #expect(list.stdout.contains("\(Self.probe)  always"), "\(list)")

        // Lowering is the user's under the ceiling too.
        #expect(try await harness.run("locationctl", ["authorize", "--default", "deny"]).status == 0)
        let lowered = try await asNobody(harness, Self.locationctl, ["authorize", Self.probe, "deny"])
        #expect(lowered.status == 0, "\(lowered)")
    }

    /// A running app of another user stops getting fixes the moment the administrator sets `deny`, and gets them
    /// again when it is lifted, without reconnecting.
    @Test func aRunningAppIsRestrictedAtOnce() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        _ = chmod(harness.directory, 0o755)
        let appProbe = DaemonHarness.products.appendingPathComponent("CoreLocationAppProbe").resolvingSymlinksInPath().path
        let granted = try await asNobody(harness, Self.locationctl, ["authorize", appProbe, "always"])
        #expect(granted.status == 0, "\(granted)")

        let app = try RunningApp(harness, Self.nobody + [appProbe, "updates", "--seconds", "60"], tool: "/usr/bin/setpriv")
        #expect(await app.wait { $0.contains { $0.hasPrefix("location ") } }, "\(app.lines.withLock { $0 })")

        #expect(try await harness.run("locationctl", ["authorize", "--default", "deny"]).status == 0)
        #expect(await app.wait { $0.contains { $0.hasPrefix("authorization ") && $0.hasSuffix(" 1") } }, "\(app.lines.withLock { $0 })")
        // No fix after the restriction was told (the daemon checks each delivery against it): two seconds of the
        // simulator's 1 Hz fixes, none delivered (on main the app went on getting them).
        let restrictedAt = app.lines.withLock { $0.lastIndex { $0.hasPrefix("authorization ") && $0.hasSuffix(" 1") } ?? 0 }
        let leaked = await app.wait(timeout: 2) { $0[(restrictedAt + 1)...].contains { $0.hasPrefix("location ") } }
        #expect(!leaked, "\(app.lines.withLock { $0 })")
        let fixesBefore = app.count("location")

        #expect(try await harness.run("locationctl", ["authorize", "--default", "prompt"]).status == 0)
        #expect(
            await app.wait { $0[(restrictedAt + 1)...].contains { $0.hasPrefix("authorization ") && $0.hasSuffix(" 3") } },
            "\(app.lines.withLock { $0 })")
        #expect(
            await app.wait { $0.filter { $0.hasPrefix("location ") }.count > fixesBefore }, "\(app.lines.withLock { $0 })")
        await app.stop()
    }
}

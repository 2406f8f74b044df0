import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37 through a real locationd: a client's Info.plist is read with limits, off the event loop (item 1),
/// and Settings requests come only from locationctl (item 4). The app is a Python client speaking the protocol.
@Suite(.enabled(if: RawClient.isAvailable, "needs python3 (Debian package python3)"))
struct IdentityThroughTheDaemonTests {
    /// What the daemon reads as the Python client's executable.
    static var python: String { URL(fileURLWithPath: RawClient.python).resolvingSymlinksInPath().path }

    @Test func aRefusedInfoPlistNamesTheAppByItsExecutable() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let good = try harness.infoPlist(bundle: "org.example.good")
        let normal = try await RawClient.run(harness, extra: ["CORELOCATION_INFO_PLIST": good])
        #expect(normal.hello?.app == "org.example.good", "\(normal.output)")

        // A sparse 1 GiB file: on main the daemon read all of it at this hello (4 GB resident in the audit).
        let huge = harness.directory + "/huge-Info.plist"
        let descriptor = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        #expect(ftruncate(descriptor, 1 << 30) == 0)
        close(descriptor)
        let sparse = try await RawClient.run(harness, extra: ["CORELOCATION_INFO_PLIST": huge])
        #expect(sparse.hello?.app == Self.python, "\(sparse.output)")
        #expect(await harness.logContains("over the limit of 65536"), "\(harness.logText)")

        // A FIFO nobody writes: on main the daemon's event loop waited for a writer and no hello ever came.
        let fifo = harness.directory + "/fifo-Info.plist"
        #expect(mkfifo(fifo, 0o644) == 0)
        let piped = try await RawClient.run(harness, extra: ["CORELOCATION_INFO_PLIST": fifo])
        #expect(piped.hello?.app == Self.python, "\(piped.output)")

        // A symbolic link to a good plist: on main it named the app from the link's target.
        let link = harness.directory + "/link-Info.plist"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: good)
        let linked = try await RawClient.run(harness, extra: ["CORELOCATION_INFO_PLIST": link])
        #expect(linked.hello?.app == Self.python, "\(linked.output)")
        #expect(await harness.logContains("a symbolic link"), "\(harness.logText)")

        // The daemon still serves the next client as before.
        let again = try await RawClient.run(harness, extra: ["CORELOCATION_INFO_PLIST": good])
        #expect(again.hello?.app == "org.example.good", "\(again.output)")
    }

    /// An app sends every Settings request: each is refused with `not-permitted`, also when its hello claims to be
    /// the locationctl beside the daemon (a declared executable never counts). On main every one was accepted.
    @Test func settingsRequestsFromAnAppAreRefused() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let requests: [DaemonRequest] = [
            .authorize(app: Self.python, decision: "always", accuracy: nil),
            .setDefaultPolicy("always"),
            .setServices(enabled: false),
            .registerAgent,
            .offerPrompts,
            .setBackground(app: Self.python, enabled: false),
        ]
        let locationctl = DaemonHarness.products.appendingPathComponent("locationctl").path
        for hello in [ClientHello(label: "raw"), ClientHello(label: "raw", executable: locationctl)] {
            let run = try await RawClient.run(harness, hello: hello, requests: requests + [.ping])
            #expect(run.replies.count == requests.count + 1, "\(run.output)")
            for (request, reply) in zip(requests, run.replies) {
                guard case let .failure(error) = reply else {
                    Issue.record("\(request.typeName) from an app was accepted: \(reply)")
                    continue
                }
                #expect(error.code == .notPermitted, "\(request.typeName): \(error)")
            }
            // Not a refusal of everything: the connection still works.
            #expect(run.replies.last == .ok, "\(run.output)")
        }
        // Nothing of it took effect: no decision stored for the app, services on.
        let decisions = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(decisions.status == 0, "\(decisions)")
        #expect(!decisions.stdout.contains(Self.python), "\(decisions)")
        let status = try await harness.run("locationctl", ["status"])
        #expect(status.status == 0, "\(status)")
    }

    /// locationctl still does what Settings does, and a second agent does not replace the running one.
    @Test func locationctlIsTheSettingsAppAndAnAgentIsNotReplaced() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let authorize = try await harness.run("locationctl", ["authorize", "org.example.decided", "deny"])
        #expect(authorize.status == 0, "\(authorize)")
        let decisions = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(decisions.stdout.contains("org.example.decided"), "\(decisions)")

        let agent = try RunningApp(harness, ["agent", "--answer", "dont-allow"], tool: "locationctl")
        #expect(await agent.wait { $0.contains { $0.hasPrefix("Answering location prompts") } }, "\(agent.lines.withLock { $0 })")
        let second = try await harness.run("locationctl", ["agent", "--answer", "allow-while-using"])
        #expect((second.stdout + second.stderr).contains("another prompt agent of this user is running"), "\(second)")
        #expect(second.status != 0, "\(second)")
        // The first still answers: an app's prompt is its (Don't Allow, stored).
        let plist = try harness.infoPlist(bundle: "org.example.asked")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(run.status == 4, "\(run)")
        #expect(await agent.wait { $0.contains("org.example.asked: when-in-use → dont-allow") }, "\(agent.lines.withLock { $0 })")
        await agent.stop()
    }
}

import CoreLocationDaemonProtocol
import Foundation
import Testing

/// `locationctl agent`: the daemon hands the prompts of a user's apps (here apps without a
/// terminal) to the user's agent; without one, the headless default policy applies.
@Suite(.serialized) struct PromptAgentTests {
    /// Starts `locationctl agent --answer ANSWER` and waits until it is registered.
    func agent(_ harness: DaemonHarness, answer: String) async throws -> RunningApp {
        let agent = try RunningApp(harness, ["agent", "--answer", answer], tool: "locationctl")
        #expect(await agent.wait { $0.contains { $0.hasPrefix("Answering location prompts") } }, "\(agent.lines.withLock { $0 })")
        return agent
    }

    @Test func theAgentsAnswerIsTheAppsAndIsStored() async throws {
        let harness = try DaemonHarness()
        // Simulated sources: without an agent this app would be allowed (the built-in policy).
        try await harness.start(["--simulate", "48.8584,2.2945"])
        let agent = try await agent(harness, answer: "dont-allow")
        let plist = try harness.infoPlist(bundle: "org.example.asked")
        let app = try RunningApp(harness, ["updates", "--seconds", "20"], extra: ["CORELOCATION_INFO_PLIST": plist])
        // kCLAuthorizationStatusDenied = 2.
        #expect(await app.wait { $0.contains { $0.hasPrefix("authorization ") && $0.hasSuffix(" 2") } }, "\(app.lines.withLock { $0 })")
        #expect(await agent.wait { $0.contains("org.example.asked: when-in-use → dont-allow") }, "\(agent.lines.withLock { $0 })")
        #expect(app.count("location") == 0, "\(app.lines.withLock { $0 })")
        await app.stop()
        await agent.stop()
        // Don't Allow is a decision, stored: with the agent gone the app is still denied (status 4).
        let again = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(again.status == 4, "\(again)")
    }

    @Test func allowOnceFromTheAgentLastsOneSession() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"], extra: ["CORELOCATION_DEFAULT_POLICY": "deny"])
        let plist = try harness.infoPlist(bundle: "org.example.once")
        let agent = try await agent(harness, answer: "allow-once")
        let first = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("location 48.858400 2.294500"), "\(first)")
        #expect(await agent.wait { $0.contains("org.example.once: when-in-use → allow-once") }, "\(agent.lines.withLock { $0 })")
        await agent.stop()
        // The app exited: Allow Once ended with it; no agent now, so the daemon's default policy (deny).
        let second = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(second.status == 4, "\(second)")
    }

    /// Other users are a boundary: an agent of uid 65534 is never asked about root's apps.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
        "needs root and setpriv (Debian package util-linux)"))
    func anotherUsersAgentIsNeverAsked() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"], extra: ["CORELOCATION_DEFAULT_POLICY": "deny"])
        _ = chmod(harness.directory, 0o755)
        let locationctl = DaemonHarness.products.appendingPathComponent("locationctl").path
        let other = try RunningApp(
            harness, ["--reuid=65534", "--regid=65534", "--clear-groups", locationctl, "agent", "--answer", "allow-while-using"],
            tool: "/usr/bin/setpriv")
        #expect(await other.wait { $0.contains { $0.hasPrefix("Answering location prompts for uid 65534") } }, "\(other.lines.withLock { $0 })")
        let plist = try harness.infoPlist(bundle: "org.example.mine")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(run.status == 4, "\(run)")
        await other.stop()
        #expect(!other.lines.withLock { $0 }.contains { $0.contains("org.example.mine") })
    }

    @Test func anAnswerToAPromptNobodyAskedIsRefused() async throws {
        let harness = try DaemonHarness()
        // This test process stands in for the agent: the daemon is told it is a Settings executable (decision 0085).
        let runner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try await harness.start(extra: ["CORELOCATION_SETTINGS_EXECUTABLE": runner])
        // An answer to a prompt nobody asked is refused (no agent may decide on its own).
        let connection = try DaemonConnection.connect(path: harness.socket, label: "fake-agent", timeout: 5)
        connection.startReading { _ in }
        defer { connection.close() }
        #expect(try connection.request(.registerAgent) == .ok)
        let reply = try connection.request(.answerPrompt(id: 1, answer: AgentAnswer(.allowWhileUsing)))
        guard case let .failure(error) = reply else {
            Issue.record("an unasked answer was accepted: \(reply)")
            return
        }
        #expect(error.code == .notPermitted)
    }
}

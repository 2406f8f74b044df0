import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37: an app the daemon's default policy authorized (no agent, no stored decision), watched in the background
/// while none of its processes runs, keeps its region events across a daemon SIGKILL and restart: the restarted daemon
/// asks the policy again with the request the app made, stores the crossing and relaunches the app. Before, the
/// session-only grant died with the daemon and every later crossing went unstored until the person started the app.
@Suite(.serialized) struct HeadlessRestartTests {
    @Test func defaultPolicyGrantOutlivesADaemonRestartForAnAppThatIsNotRunning() async throws {
        let policy = ["CORELOCATION_DEFAULT_POLICY": "when-in-use"]
        let scene = try await BackgroundDaemonKillTests.Scene(
            bundle: "org.example.headless-restart", daemonArguments: ["--relaunch-pickup", "2"],
            daemonEnvironment: policy, authorize: false)
        let (phase, harness, arguments, log) = (scene.phase, scene.harness, scene.arguments, scene.log)
        // Nobody decided for the app: its grant is the policy's, for the daemon's run.
        let decisions = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(decisions.status == 0, "\(decisions)")
        #expect(!decisions.stdout.contains("org.example.headless-restart"), "\(decisions)")

        // No process of the app runs, then the daemon is SIGKILLed and started again (as systemd would).
        BackgroundRelaunchTests.killAll(log)
        try await harness.killDaemon()
        try await harness.startAndWait(arguments, extra: policy)
        #expect(
            await DaemonHarness.eventually(timeout: 20) {
                harness.logText.contains("Asking the policy again for a background app")
            }, "\(harness.logText.suffix(4000))")

        _ = phase.toggle()
        #expect(
            await DaemonHarness.eventually(timeout: 30) { BackgroundRelaunchTests.events(log) == ["enter"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText.suffix(4000))")
        #expect(BackgroundRelaunchTests.launches(log).last?.reason == "location", "relaunched for the entry")
        withExtendedLifetime(scene) {}
    }
}

import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 with real processes: what `CLBackgroundActivitySession` and `CLServiceSession` mean
/// through locationd (docs/decisions/0048-sessions-relaunch.md). An app iterating `liveUpdates`
/// while it holds a session is relaunched at the next location update after it was killed, and
/// hears fixes newer than its death live; an invalidated session is not; a relaunched app that
/// does not make its session again ends it.
@Suite(.serialized) struct SessionRelaunchTests {
    /// A slow walk north, one point a recorded second: every fix differs from the last.
    static func track(in harness: DaemonHarness, points: Int = 900) throws -> String {
        let start = (latitude: 48.8584, longitude: 2.2945)
        return try GPXTrack.write(
            (0..<points).map { (latitude: start.latitude + Double($0) * 0.00001, longitude: start.longitude) },
            in: harness.directory, creator: "SessionRelaunchTests")
    }

    /// `update T LAT LON FIXTIME` lines of the app's log after its last launch line.
    static func updatesAfterLastLaunch(_ log: String) -> [Double] {
        BackgroundServicesTests.afterLastLaunch(log, "update").compactMap { $0.count == 5 ? Double($0[4]) : nil }
    }

    static func target(_ harness: DaemonHarness, _ bundle: String) async -> BackgroundStatus.Target? {
        await BackgroundRelaunchTests.background(harness)?.targets.first { $0.app == bundle }
    }

    static func history(_ harness: DaemonHarness, _ bundle: String) async -> [String] {
        (await BackgroundRelaunchTests.background(harness)?.history ?? []).filter { $0.contains(":\(bundle) ") }
    }

    static func kill(_ log: String) async throws {
        let pid = try #require(BackgroundRelaunchTests.launches(log).last?.pid, "no launch logged in \(log)")
        Glibc.kill(pid, SIGKILL)
        _ = await RunningApp.waitGone(pid, timeout: 5)
    }

    @Test func killedWithASessionTheAppIsRelaunchedAtTheNextUpdateAndAnInvalidatedOneIsNot() async throws {
        let harness = try DaemonHarness()
        try await harness.start(
            ["--simulate", try Self.track(in: harness), "--launcher", "exec", "--relaunch-pickup", "2",
             "--relaunch-limit", "1000"])
        let (held, invalidated) = ("org.example.session", "org.example.invalidated")
        let (heldLog, invalidatedLog) = (harness.directory + "/held.log", harness.directory + "/invalidated.log")
        defer {
            BackgroundRelaunchTests.killAll(heldLog)
            BackgroundRelaunchTests.killAll(invalidatedLog)
        }
        let control = try RunningApp(
            harness, ["session", "--log", invalidatedLog, "--invalidate", "--seconds", "120"],
            extra: ["CORELOCATION_INFO_PLIST": try harness.infoPlist(bundle: invalidated)])
        let app = try RunningApp(
            harness, ["session", "--log", heldLog, "--seconds", "120"],
            extra: ["CORELOCATION_INFO_PLIST": try harness.infoPlist(bundle: held)])
        #expect(
            await DaemonHarness.eventually(timeout: 30) {
                !Self.updatesAfterLastLaunch(heldLog).isEmpty
                    && BackgroundRelaunchTests.lines(invalidatedLog).contains { $0.hasPrefix("invalidated ") }
            }, "\(harness.logText)")
        let running = await Self.target(harness, held)
        #expect(running?.state == "running", "\(String(describing: running))")

        // The invalidated app goes first, then the one holding its session.
        Glibc.kill(control.process.processIdentifier, SIGKILL)
        #expect(await RunningApp.waitGone(control.process.processIdentifier, timeout: 5))
        Glibc.kill(app.process.processIdentifier, SIGKILL)
        #expect(await RunningApp.waitGone(app.process.processIdentifier, timeout: 5))
        let killedAt = Date().timeIntervalSince1970

        // Relaunched for the next fix: it makes its session again and hears newer fixes live.
        #expect(
            await DaemonHarness.eventually(timeout: 30) {
                BackgroundRelaunchTests.launches(heldLog).count == 2
                    && Self.updatesAfterLastLaunch(heldLog).contains { $0 > killedAt }
            }, "\(BackgroundRelaunchTests.lines(heldLog))\n\(harness.logText)")
        #expect(BackgroundRelaunchTests.launches(heldLog).last?.reason == "location")
        #expect(BackgroundServicesTests.afterLastLaunch(heldLog, "session").count == 1)
        // Taken back: the daemon runs nothing for it and holds no wake-up.
        #expect(
            await DaemonHarness.eventually(timeout: 10) {
                let target = await Self.target(harness, held)
                return target?.state == "running" && target?.services == [] && target?.pending == 0
            })
        let history = await Self.history(harness, held)
        #expect(history.contains { $0.hasSuffix("session interrupted: relaunch at the next location update") }, "\(history)")
        #expect(history.contains { $0.hasSuffix("session resumed by the app") }, "\(history)")
        // The invalidated session: the same fixes came, nothing was kept for it and it was not started again.
        #expect(BackgroundRelaunchTests.launches(invalidatedLog).count == 1)
        let controlTarget = await Self.target(harness, invalidated)
        #expect(controlTarget?.services == [] && controlTarget?.pending == 0, "\(String(describing: controlTarget))")
        let controlHistory = await Self.history(harness, invalidated)
        #expect(controlHistory.isEmpty, "\(controlHistory)")

        // Killed again while holding the session it made at launch: relaunched again.
        try await Self.kill(heldLog)
        let killedAgainAt = Date().timeIntervalSince1970
        #expect(
            await DaemonHarness.eventually(timeout: 30) {
                BackgroundRelaunchTests.launches(heldLog).count == 3
                    && Self.updatesAfterLastLaunch(heldLog).contains { $0 > killedAgainAt }
            }, "\(BackgroundRelaunchTests.lines(heldLog))\n\(harness.logText)")
        // Standard updates are never stored: the wake-ups carried no fix to the app.
        #expect(!BackgroundRelaunchTests.lines(heldLog).contains { $0.hasPrefix("location ") })
    }

    @Test func aRelaunchedAppThatDoesNotMakeItsServiceSessionAgainEndsIt() async throws {
        let harness = try DaemonHarness()
        try await harness.start(
            ["--simulate", try Self.track(in: harness), "--launcher", "exec", "--relaunch-pickup", "2"])
        let bundle = "org.example.service-session"
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        // Relaunched, it skips the session (`--no-resume`) and exits after its few seconds.
        let app = try RunningApp(
            harness, ["session", "--service", "--no-resume", "--log", log, "--seconds", "6"],
            extra: ["CORELOCATION_INFO_PLIST": try harness.infoPlist(bundle: bundle)])
        #expect(await DaemonHarness.eventually(timeout: 30) { !Self.updatesAfterLastLaunch(log).isEmpty }, "\(harness.logText)")
        Glibc.kill(app.process.processIdentifier, SIGKILL)
        #expect(await RunningApp.waitGone(app.process.processIdentifier, timeout: 5))

        #expect(
            await DaemonHarness.eventually(timeout: 30) { BackgroundRelaunchTests.launches(log).count == 2 },
            "\(harness.logText)")
        #expect(BackgroundServicesTests.afterLastLaunch(log, "session").isEmpty)
        // It ran without its session and ended: the session ended with it, nothing waits to start it again.
        #expect(
            await DaemonHarness.eventually(timeout: 30) {
                await Self.history(harness, bundle).contains { $0.hasSuffix("session ended: the app ran without taking it back") }
            }, "\(harness.logText)")
        let target = await Self.target(harness, bundle)
        #expect(target?.services == [] && target?.pending == 0 && target?.state == "ready", "\(String(describing: target))")
        #expect(BackgroundRelaunchTests.launches(log).count == 2)
    }
}

import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 with real processes: `CLMonitor` conditions outlive the app
/// (docs/decisions/0049-monitor-relaunch.md). The app monitors a condition with a `CLMonitor`, is
/// killed, the drive satisfies the condition; locationd stores the change, launches the app, and
/// the monitor the new process makes with the same name reports it exactly once.
@Suite(.serialized) struct MonitorRelaunchTests {
    static func conditions(_ log: String) -> [String] {
        BackgroundRelaunchTests.lines(log).filter { $0.hasPrefix("condition ") }.map { String($0.split(separator: " ").last ?? "") }
    }

    static func appArguments(log: String) -> [String] {
        let center = BackgroundRelaunchTests.center
        return ["monitor", "places", "\(center.latitude)", "\(center.longitude)", "200", "home", "--log", log, "--seconds", "90"]
    }

    /// A daemon whose drive enters the region after 60 s, and the app (with `extra` arguments)
    /// monitoring it from outside, killed once its monitor reported `unsatisfied`. Returns the log.
    /// (60 s, not 30: on a loaded 2-core machine this test's polling task once waited over 30 s for a pool
    /// thread, and saw the app's `unsatisfied` only with the `satisfied` after it.)
    static func killedOutside(_ harness: DaemonHarness, extra: [String] = []) async throws -> String {
        let track = try BackgroundRelaunchTests.track(in: harness, outside: 120, cycles: 0, endInside: true)
        try await harness.start(BackgroundRelaunchTests.daemonArguments(track: track))
        let plist = try harness.infoPlist(bundle: "org.example.monitor")
        let log = harness.directory + "/app.log"
        let app = try RunningApp(harness, appArguments(log: log) + extra, extra: ["CORELOCATION_INFO_PLIST": plist])
        // The first fixes, outside, decide the condition: unsatisfied, reported live.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 30) { conditions(log) == ["unsatisfied"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        kill(app.process.processIdentifier, SIGKILL)
        _ = await RunningApp.waitGone(app.process.processIdentifier, timeout: 5)
        return log
    }

    @Test func killedAppIsRelaunchedAndItsMonitorReportsTheChangeOnce() async throws {
        let harness = try DaemonHarness()
        let log = try await Self.killedOutside(harness)
        defer { BackgroundRelaunchTests.killAll(log) }

        // The drive enters; locationd starts the app, whose monitor (made again by name, its
        // condition known) reports the change once.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 120) { Self.conditions(log) == ["unsatisfied", "satisfied"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        let launches = BackgroundRelaunchTests.launches(log)
        #expect(launches.count == 2)
        #expect(launches.last?.reason == "location")
        // The relaunched app found its condition in the monitor and did not add it again.
        let monitoring = BackgroundRelaunchTests.lines(log).filter { $0.hasPrefix("monitoring ") }.map {
            String($0.split(separator: " ").last ?? "")
        }
        #expect(monitoring == ["added", "found"])
        #expect(harness.logText.contains("kind=monitor:places"), "\(harness.logText)")
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                await BackgroundRelaunchTests.background(harness)?.targets.first?.pending == 0
            })
        await Polling.pause(1)
        #expect(Self.conditions(log) == ["unsatisfied", "satisfied"])
    }

    /// The relaunched process makes its monitor but is killed before it reads the events: the
    /// change it was handed stays with the daemon (an event counts as delivered when the app takes
    /// it from `events`, not when it reached the process), and the next launch reports it once.
    @Test func changeNotReadBeforeTheKillReachesTheNextProcess() async throws {
        let harness = try DaemonHarness()
        let log = try await Self.killedOutside(harness, extra: ["--hold-once", harness.directory + "/held"])
        defer { BackgroundRelaunchTests.killAll(log) }

        // The drive enters: the first relaunch holds its monitor without reading it.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 120) {
                BackgroundRelaunchTests.lines(log).contains { $0.hasPrefix("holding ") }
            }, "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        // Time for the daemon to send the change to the holding process (milliseconds when it works).
        await Polling.pause(2)
        #expect(await BackgroundRelaunchTests.background(harness)?.targets.first?.pending == 1)
        let holding = try #require(
            BackgroundRelaunchTests.launches(log).last?.pid, "no launch logged: \(BackgroundRelaunchTests.lines(log))")
        kill(holding, SIGKILL)

        #expect(
            await BackgroundRelaunchTests.wait(timeout: 30) { Self.conditions(log) == ["unsatisfied", "satisfied"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(BackgroundRelaunchTests.launches(log).map(\.reason) == ["none", "location", "location"])
        await Polling.pause(1)
        #expect(Self.conditions(log) == ["unsatisfied", "satisfied"])
    }

    /// Killed at random moments while the drive goes in and out: every change reaches the monitor
    /// exactly once, in order.
    @Test func killsAtRandomMomentsLoseAndDuplicateNoCondition() async throws {
        let harness = try DaemonHarness()
        let cycles = 8
        let track = try BackgroundRelaunchTests.track(in: harness, outside: 6, cycles: cycles)
        try await harness.start(BackgroundRelaunchTests.daemonArguments(track: track))
        let plist = try harness.infoPlist(bundle: "org.example.monitor")
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        _ = try RunningApp(harness, Self.appArguments(log: log), extra: ["CORELOCATION_INFO_PLIST": plist])
        let expected = ["unsatisfied"] + (0..<cycles).flatMap { _ in ["satisfied", "unsatisfied"] }
        let kills = await BackgroundRelaunchTests.killAtRandomMoments(log) {
            Self.conditions(log).count >= expected.count
        }
        #expect(await BackgroundRelaunchTests.wait(timeout: 30) { Self.conditions(log).count >= expected.count })
        await Polling.pause(1)
        #expect(Self.conditions(log) == expected, "kills: \(kills)\n\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(kills >= 4)
    }
}

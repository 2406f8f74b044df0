import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 with real processes: significant changes and visits outlive the app
/// (docs/decisions/0039-background-services-and-idle-sweep.md). The app starts both, is killed,
/// the drive moves on and stops twice; what the daemon stored while the app did not run reaches the
/// relaunched app's delegate exactly once: the changes when it starts the significant-change
/// service again, the visits once its delegate is set.
@Suite(.serialized) struct BackgroundServicesTests {
    static let start = (latitude: 48.8584, longitude: 2.2945)
    /// Degrees of latitude per 100 m.
    static let step = 0.0009

    /// Points one recorded second apart: `still` at the start, 10 steps of 100 m north, 20 at
    /// B (a stay), 10 more steps, then 200 at C.
    static func track(in harness: DaemonHarness, still: Int) throws -> String {
        var points: [Double] = Array(repeating: start.latitude, count: still)
        for k in 1...10 { points.append(start.latitude + Double(k) * step) }
        points += Array(repeating: start.latitude + 10 * step, count: 20)
        for k in 11...20 { points.append(start.latitude + Double(k) * step) }
        points += Array(repeating: start.latitude + 20 * step, count: 200)
        return try GPXTrack.write(
            points.map { (latitude: $0, longitude: start.longitude) }, in: harness.directory,
            creator: "BackgroundServicesTests")
    }

    /// `location T LAT LON FIXTIME` lines of the app's log after its last launch line.
    static func afterLastLaunch(_ log: String, _ kind: String) -> [[Substring]] {
        let lines = BackgroundRelaunchTests.lines(log)
        let last = lines.lastIndex { $0.hasPrefix("launch ") } ?? 0
        return lines[last...].filter { $0.hasPrefix(kind + " ") }.map { $0.split(separator: " ") }
    }

    static func stored(_ harness: DaemonHarness, kind: String) -> Int {
        harness.logText.split(separator: "\n").filter { $0.contains("Pending event") && $0.contains("kind=\(kind)") }.count
    }

    /// Quiet monitoring is off (`--monitoring-probe-interval 0`): settled in the first visit, the
    /// engine would otherwise look only once a minute and miss the drive.
    @Test
    func significantChangesAndVisitsWhileKilledReachTheRelaunchedAppOnce() async throws {
        let harness = try DaemonHarness()
        // 120 s of standing still (speed 2) before the drive moves. The simulated source starts its drive when
        // the first client asks for locations (the app, below), not when the daemon starts: under load the app
        // took 34 s to connect, so every time below is counted from the app's first fix.
        let still = 240
        let track = try Self.track(in: harness, still: still)
        try await harness.startAndWait(
            ["--simulate", track, "--simulate-speed", "2", "--launcher", "exec", "--relaunch-pickup", "2",
             "--significant-change", "250,1", "--visit-stay", "3,2", "--monitoring-probe-interval", "0"])
        let bundle = "org.example.services"
        let plist = try harness.infoPlist(bundle: bundle)
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        // A region far away: the app is watched for its services only.
        let app = try RunningApp(
            harness,
            ["background", "0", "0", "100", "far", "--log", log, "--seconds", "120", "--significant", "--visits"],
            extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(
            await DaemonHarness.eventually(timeout: 15) {
                await BackgroundDaemonKillTests.background(harness)?.targets.first?.state == "running"
            }, "\(harness.logText)")
        // The app hears the service's first fix live, then goes for good until switched on again.
        #expect(await DaemonHarness.eventually(timeout: 10) { !Self.afterLastLaunch(log, "location").isEmpty })
        let started = Date()
        let off = try await harness.run("locationctl", ["background", "off", bundle])
        #expect(off.status == 0, "\(off.stderr)")
        kill(app.process.processIdentifier, SIGKILL)
        #expect(await RunningApp.waitGone(app.process.processIdentifier, timeout: 5))
        let killedAt = Date()
        #expect(killedAt.timeIntervalSince(started) < Double(still) / 2, "the app must be gone before the drive moves")

        // The drive: moves, stays at B, moves, stays at C (40 recorded seconds at speed 2), and more. Past the
        // moves' end on the wall clock, the stored events are counted once they stop changing: a drive that
        // falls behind under load is waited for, never cut short.
        await Polling.pause(max(0, Double(still + 60) / 2 + 6 - Date().timeIntervalSince(started)))
        var stored = (changes: -1, visits: -1)
        _ = await Polling.until(timeout: 60) {
            let now = (changes: Self.stored(harness, kind: "significant-change"), visits: Self.stored(harness, kind: "visit"))
            defer { stored = now }
            if now != stored { await Polling.pause(4); return false }
            return now.changes >= 2 && now.visits >= 1
        }
        let (changes, visits) = stored
        let status = await BackgroundDaemonKillTests.background(harness)
        #expect(changes >= 2, "\(harness.logText)")
        #expect(visits >= 1, "\(harness.logText)")
        #expect(status?.targets.first?.pending == changes + visits)
        #expect(BackgroundRelaunchTests.launches(log).count == 1, "switched off: not relaunched")

        // The stored changes are told from the relaunched app's first live fix (the service's usual one) by their
        // fix times, which are the simulation's (decision 0062's replay rule: at speed 2 a fix carries the wall
        // clock at playback second 0 plus its recorded seconds, so it runs ahead of the wall clock; comparing
        // with the wall clock now, as this test did before that rule, counted none). The app's first fix is
        // recorded second 0 (the drive starts when the app asks); the moves end at recorded second still + 40,
        // and the relaunch comes after the wall-clock pause above, at recorded second still + 72 or later.
        let firstFix = try #require(
            BackgroundRelaunchTests.lines(log).first { $0.hasPrefix("location ") }
                .flatMap { $0.split(separator: " ").dropFirst(4).first }.flatMap { Double($0) },
            "\(BackgroundRelaunchTests.lines(log))")
        let movesEnded = firstFix + Double(still + 40) + 6
        let on = try await harness.run("locationctl", ["background", "on", bundle])
        #expect(on.status == 0, "\(on.stderr)")
        // Relaunched: the stored changes and visits arrive.
        let pendingLocations = { Self.afterLastLaunch(log, "location").filter { (Double($0[4]) ?? 0) < movesEnded } }
        #expect(
            await DaemonHarness.eventually(timeout: 30) {
                BackgroundRelaunchTests.launches(log).count == 2 && pendingLocations().count >= changes
                    && Self.afterLastLaunch(log, "visit").count >= visits
            }, "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(
            await DaemonHarness.eventually(timeout: 10) {
                await BackgroundDaemonKillTests.background(harness)?.targets.first?.pending == 0
            })
        try await Task.sleep(for: .seconds(2))
        // Exactly once each, in order; nothing more was stored meanwhile (the app hears live now).
        let delivered = pendingLocations().map { Double($0[4]) ?? 0 }
        #expect(delivered.count == changes, "\(BackgroundRelaunchTests.lines(log))")
        #expect(delivered == delivered.sorted() && Set(delivered).count == delivered.count)
        #expect(Self.afterLastLaunch(log, "visit").count == visits, "\(BackgroundRelaunchTests.lines(log))")
        #expect(BackgroundRelaunchTests.launches(log).last?.reason == "location")
        #expect(Self.stored(harness, kind: "significant-change") == changes)
        // Standard updates are never stored: only the two kinds above (and no region events).
        #expect(!harness.logText.contains("kind=enter") && !harness.logText.contains("kind=exit"))
    }
}

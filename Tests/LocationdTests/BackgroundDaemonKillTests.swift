import CoreLocationDaemonProtocol
import CoreLocationStorage
import CoreLocationGPSDTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11's daemon fault: locationd SIGKILLed (and restarted by the test) at random moments
/// across a run of region crossings while the app is killed and relaunched too. Every crossing
/// reaches the delegate exactly once, in order, and a restarted daemon reports no crossing that did
/// not happen (the region's state is stored with the event, decision 0039). The position comes
/// from an NMEA feed the test owns, so it carries on across the daemon's restarts.
@Suite(.serialized) struct BackgroundDaemonKillTests {
    static let center = (latitude: 52.52, longitude: 13.405)
    /// 600 m north of the centre: outside the 200 m region.
    static let north = 52.5254

    /// RMC + GGA at a place, stamped now.
    static func sentences(latitude: Double, longitude: Double, at date: Date = Date()) -> [String] {
        NMEAEpoch.sentences(latitude: latitude, longitude: longitude, at: date)
    }

    /// Where the feed puts the receiver: inside the region or 600 m north of it.
    final class Phase: Sendable {
        private let inside = Atomic(false)
        var isInside: Bool { inside.load(ordering: .relaxed) }
        /// Moves to the other side; returns whether the receiver is now inside.
        func toggle() -> Bool { inside.logicalXor(true, ordering: .relaxed).newValue }
    }

    static func background(_ harness: DaemonHarness) async -> BackgroundStatus? {
        guard let result = try? await harness.run("locationctl", ["background", "--json"]), result.status == 0
        else { return nil }
        return try? JSONDecoder().decode(BackgroundStatus.self, from: Data(result.stdout.utf8))
    }

    /// The receiver's feed (outside the region until `phase` toggles), a daemon reading it, and the
    /// app monitoring the region: running, and outside determined. Ends all of it when released.
    final class Scene {
        let feed: NMEAFeed
        let phase = Phase()
        let harness: DaemonHarness
        let arguments: [String]
        let log: String
        let app: RunningApp
        let daemon: ChildProcess

        /// `authorize` false: no stored decision; the daemon's default policy (in `daemonEnvironment`) answers.
        init(
            bundle: String, daemonArguments: [String] = [], daemonEnvironment: [String: String] = [:], authorize: Bool = true
        ) async throws {
            feed = try NMEAFeed()
            let phase = phase
            feed.startPumping(interval: 0.2) { _ in
                BackgroundDaemonKillTests.sentences(
                    latitude: phase.isInside ? BackgroundDaemonKillTests.center.latitude : BackgroundDaemonKillTests.north,
                    longitude: BackgroundDaemonKillTests.center.longitude)
            }
            harness = try DaemonHarness()
            arguments =
                ["--source", "tcp://127.0.0.1:\(feed.port)", "--region-dwell", "0.6", "--launcher", "exec"] + daemonArguments
            daemon = try await harness.startAndWait(arguments, extra: daemonEnvironment)
            if authorize {
                let allow = try await harness.run("locationctl", ["authorize", bundle, "when-in-use"])
                #expect(allow.status == 0, "\(allow)")
            }
            let plist = try harness.infoPlist(bundle: bundle)
            log = harness.directory + "/app.log"
            let center = BackgroundDaemonKillTests.center
            app = try RunningApp(
                harness,
                ["background", "\(center.latitude)", "\(center.longitude)", "200", "home", "--log", log, "--seconds", "600"],
                extra: ["CORELOCATION_INFO_PLIST": plist])
            let harness = harness
            #expect(
                await DaemonHarness.eventually(timeout: 20) {
                    await BackgroundDaemonKillTests.background(harness)?.targets.first?.state == "running"
                }, "\(harness.logText)")
            // Outside, determined (no event), before the first crossing.
            try await Task.sleep(for: .seconds(2))
        }

        deinit {
            BackgroundRelaunchTests.killAll(log)
            if let pid = harness.process.withLock({ $0?.processIdentifier }) { kill(pid, SIGKILL) }
            feed.close()
        }
    }

    @Test func daemonKilledAcrossRegionEventsLosesRepeatsAndInventsNothing() async throws {
        let scene = try await Scene(
            bundle: "org.example.daemonkill", daemonArguments: ["--relaunch-pickup", "2", "--relaunch-limit", "1000"])
        let (phase, harness, arguments, log) = (scene.phase, scene.harness, scene.arguments, scene.log)

        var generator = SystemRandomNumberGenerator()
        let crossings = 16
        var expected: [String] = []
        var daemonKills = 0
        var appKills = 0
        for index in 0..<crossings {
            expected.append(phase.toggle() ? "enter" : "exit")
            // The faults, at random moments around the crossing: before the daemon saw enough
            // fixes, while it writes the event, after; the app killed before or after delivery.
            if index % 2 == 0 || Bool.random(using: &generator) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...1500, using: &generator)))
                try await harness.killDaemon()
                daemonKills += 1
                try await harness.startAndWait(arguments)
            }
            if Bool.random(using: &generator) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...1500, using: &generator)))
                if let pid = BackgroundRelaunchTests.launches(log).last?.pid, kill(pid, 0) == 0 {
                    kill(pid, SIGKILL)
                    appKills += 1
                }
            }
            let count = expected.count
            #expect(
                await DaemonHarness.eventually(timeout: 40) { BackgroundRelaunchTests.events(log).count >= count },
                "crossing \(count): \(BackgroundRelaunchTests.lines(log))\n\(harness.logText.suffix(4000))")
        }
        // Settled: nothing more comes (no repeat, no invented crossing).
        try await Task.sleep(for: .seconds(3))
        let events = BackgroundRelaunchTests.events(log)
        #expect(
            events == expected,
            "daemon kills \(daemonKills), app kills \(appKills)\n\(BackgroundRelaunchTests.lines(log))")
        #expect(daemonKills >= crossings / 2)
        #expect(BackgroundRelaunchTests.launches(log).contains { $0.reason == "location" }, "the app was relaunched")
        #expect(await DaemonHarness.eventually(timeout: 10) { await Self.background(harness)?.targets.first?.pending == 0 })
        withExtendedLifetime(scene) {}
    }

    /// The daemon kills itself in the middle of the entry's write: inside the transaction that
    /// stores the pending event and the region's new state (every statement done, not committed),
    /// or just after its commit. Restarted, it loses nothing and invents nothing: rolled back, the
    /// region is still outside and the entry is seen again; committed, the stored entry is
    /// delivered and the region, inside, gives no second one. Then the exit comes as usual.
    @Test(arguments: BackgroundStore.WritePoint.allCases)
    func daemonKilledInTheMiddleOfTheEntrysWrite(_ point: BackgroundStore.WritePoint) async throws {
        let scene = try await Scene(
            bundle: "org.example.midwrite", daemonEnvironment: ["CORELOCATION_FAULT_KILL_IN_WRITE": point.rawValue])
        let (phase, harness, arguments, log, faulty) = (scene.phase, scene.harness, scene.arguments, scene.log, scene.daemon)

        _ = phase.toggle()
        // Foundation's Process learns of the end after the kernel does; its termination reason traps
        // while it still thinks the process runs (the CI met that), so wait for Process itself.
        let ended = await Polling.until(timeout: 20) { !faulty.isRunning }
        #expect(ended, "the fault did not fire: \(harness.logText)")
        if ended { #expect(faulty.terminationReason == .uncaughtSignal && faulty.terminationStatus == SIGKILL) }
        let stored = harness.logText.contains("Pending event")
        #expect(!stored, "killed before the write returned, the daemon could not log it")
        try await harness.startAndWait(arguments)
        #expect(
            await DaemonHarness.eventually(timeout: 30) { BackgroundRelaunchTests.events(log) == ["enter"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        try await Task.sleep(for: .seconds(3))
        #expect(BackgroundRelaunchTests.events(log) == ["enter"], "one entry, once")

        _ = phase.toggle()
        #expect(
            await DaemonHarness.eventually(timeout: 30) { BackgroundRelaunchTests.events(log) == ["enter", "exit"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(await DaemonHarness.eventually(timeout: 10) { await Self.background(harness)?.targets.first?.pending == 0 })
        // The app was connected throughout (reconnected after the restart): no launch was needed.
        #expect(BackgroundRelaunchTests.launches(log).count == 1)
        withExtendedLifetime(scene) {}
    }
}

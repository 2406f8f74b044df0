import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// The background sweep sleeps until its next deadline (decision 0039): nothing pending, no
/// wake-up; an event wakes it; it then wakes exactly at the backoff deadlines and at the expiry.
/// A daemon core on a manual scheduler and its wall clock, a real database and real launches of
/// `/usr/bin/true` (the exec launcher), no sleeps.
@Suite struct BackgroundSweepTests {
    static let executable = "/usr/bin/true"

    struct Fixture {
        let scheduler: ManualScheduler
        let core: DaemonCore
        let store: BackgroundStore
        let key: DaemonCore.AppKey
        let directory: ScratchDirectory

        init(policy: RelaunchPolicy) throws {
            let directory = try ScratchDirectory("sweep")
            self.directory = directory
            let authorization = try AuthorizationStore(path: directory.path("d.sqlite"))
            let scheduler = ManualScheduler()
            self.scheduler = scheduler
            core = DaemonCore(
                store: authorization, databasePath: directory.path("d.sqlite"),
                sources: SharedSources([], clock: { scheduler.now }), scheduler: scheduler,
                configuration: LocationEngine.Configuration(), environmentPolicy: nil, limits: DaemonLimits(),
                daemonUID: getuid(), launcher: .exec, relaunch: policy,
                wallNow: { scheduler.wallNow.timeIntervalSince1970 },
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            store = BackgroundStore(database: authorization.database)
            key = DaemonCore.AppKey(uid: getuid(), appID: "org.example.sweep")
            let fingerprint = try #require(FileFingerprint.of(Self.executable))
            try store.register(
                LaunchTarget(
                    uid: key.uid, appID: key.appID, executable: Self.executable, arguments: [], workingDirectory: "/",
                    environment: [:], unit: nil, fingerprint: fingerprint, registeredAt: 0))
        }

        static var executable: String { BackgroundSweepTests.executable }

        /// Waits (without blocking a thread) until the background queue ran everything queued so far.
        func drain() async {
            await withCheckedContinuation { continuation in core.backgroundQueue.async { continuation.resume() } }
        }

        var app: DaemonCore.App? { core.state.withLock { $0.apps[key] } }
        var launches: Int { (try? store.launches(uid: key.uid, appID: key.appID).count) ?? -1 }
    }

    static let region = MonitoredRegion(identifier: "home", latitude: 48.8584, longitude: 2.2945, radius: 200)
    static let fix = Fix(latitude: 48.8584, longitude: 2.2945, horizontalAccuracy: 5, timestamp: Date())

    @Test func sleepsWithNothingPendingAndWakesOnlyAtDeadlines() async throws {
        let fixture = try Fixture(policy: RelaunchPolicy(limit: 3, window: 600, pickup: 10, expiry: 100))
        let core = fixture.core
        core.restoreBackgroundApps()
        core.startBackgroundSweep()
        await fixture.drain()
        // Nothing pending: the sweep does not wake at all, however long the daemon idles.
        #expect(core.sweepTimer.deadline == nil)
        fixture.scheduler.advance(by: 3600)
        await fixture.drain()
        #expect(core.sweepTimer.firings == 0)
        #expect(fixture.launches == 0)

        // A crossing while the app does not run: stored, and the app is launched at once.
        let start = fixture.scheduler.now
        let app = try #require(fixture.app)
        core.backgroundEvent(.region(.entered(Self.region, fix: Self.fix)), app: app)
        await fixture.drain()
        #expect(fixture.launches == 1)
        // The launch's pickup time (10 s) is the next deadline.
        #expect(abs((core.sweepTimer.deadline ?? 0) - (start + 10.001)) < 1e-6)
        // The crossing's new region state was stored with the event.
        let regions = try RegionStore(database: fixture.store.database).regions(appID: app.authorization.identity.id)
        #expect(regions.map(\.state) == [.inside])

        fixture.scheduler.advance(by: 9.9)
        await fixture.drain()
        #expect(fixture.launches == 1, "woke before the backoff ran out")
        fixture.scheduler.advance(by: 0.2)
        await fixture.drain()
        #expect(fixture.launches == 2)
        // Backoff doubles: 20 s after the second launch. That launch ran when the timer fired (10.001) or, when the
        // sweep's hop off the timer ran after `advance` returned, at 10.1: either way 20 s on, never 10.
        let second = (core.sweepTimer.deadline ?? 0) - start
        #expect(second >= 10.001 + 20.001 - 1e-6 && second <= 10.1 + 20.001 + 1e-6, "deadline at +\(second) s")
        fixture.scheduler.advance(by: 20.1)
        await fixture.drain()
        #expect(fixture.launches == 3)
        // Three launches in the window: rate-limited until t = 600, but the event expires at 100.
        #expect(abs((core.sweepTimer.deadline ?? 0) - (start + 100.001)) < 1e-6)
        fixture.scheduler.advance(by: 69.9)
        await fixture.drain()
        #expect(try fixture.store.pendingCounts().isEmpty)
        #expect(try fixture.store.records().contains { $0.what.hasPrefix("expired event 1 (enter)") })
        // Nothing pending again: asleep for good.
        #expect(core.sweepTimer.deadline == nil)
        fixture.scheduler.advance(by: 3600)
        await fixture.drain()
        #expect(core.sweepTimer.firings == 3)
        #expect(fixture.launches == 3)
    }

    /// An app switched off (Background App Refresh): its event waits, the sweep sleeps until the
    /// event's expiry and not a moment before.
    @Test func anAppThatMayNotBeLaunchedArmsOnlyTheExpiry() async throws {
        let fixture = try Fixture(policy: RelaunchPolicy(limit: 3, window: 600, pickup: 10, expiry: 100))
        let core = fixture.core
        core.restoreBackgroundApps()
        core.startBackgroundSweep()
        await fixture.drain()
        #expect(try fixture.store.setEnabled(false, uid: fixture.key.uid, appID: fixture.key.appID))
        let app = try #require(fixture.app)
        core.backgroundEvent(.region(.exited(Self.region, fix: Self.fix)), app: app)
        await fixture.drain()
        #expect(fixture.launches == 0)
        #expect(abs((core.sweepTimer.deadline ?? 0) - 100.001) < 1e-6)
        fixture.scheduler.advance(by: 100.1)
        await fixture.drain()
        #expect(core.sweepTimer.deadline == nil)
        #expect(core.sweepTimer.firings == 1)
        #expect(try fixture.store.records().contains { $0.what == "not launched: off" })
    }

    @Test(arguments: [
        // (launches, unanswered, now, earliest): the rule each row guards.
        ([Double](), 0, 5.0, 5.0 as Double?),  // never launched: now
        ([0.0], 1, 5.0, 10.0),  // pickup 10 s after the launch
        ([0.0, 10.0], 2, 15.0, 30.0),  // doubled
        ([0.0, 10.0, 30.0], 3, 31.0, 600.0),  // three in the window: the first must leave it
        ([0.0, 10.0, 30.0], 0, 31.0, 600.0),  // the same without backoff
        ([-700.0, 10.0, 30.0], 0, 31.0, 31.0),  // an old launch does not count
    ])
    func earliestLaunchMatchesDecide(launches: [Double], unanswered: Int, now: Double, earliest: Double?) throws {
        let policy = RelaunchPolicy(limit: 3, window: 600, pickup: 10, expiry: 100)
        let computed = policy.earliestLaunch(launches: launches, unanswered: unanswered, now: now)
        #expect(computed == earliest)
        // The oracle is `decide`: launch at the earliest time, not a millisecond before.
        let at = try #require(computed)
        #expect(policy.decide(launches: launches, unanswered: unanswered, now: at) == .launch)
        if at > now {
            #expect(policy.decide(launches: launches, unanswered: unanswered, now: at - 0.001) != .launch)
        }
        #expect(RelaunchPolicy(limit: 0).earliestLaunch(launches: [], unanswered: 0, now: 0) == nil)
    }
}

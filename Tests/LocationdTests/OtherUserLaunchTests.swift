import CoreLocationStorage
import Foundation
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11's fault "a launch target of another user: never run". locationd launches apps by spawning them as its
/// own user, so a target recorded for another user (an app of theirs that a system-wide daemon served) would run
/// with the daemon's rights: it is refused, the refusal is recorded once, and the same executable registered by the
/// daemon's own user is launched by the same core (so the refusal is the user, not a broken launcher).
/// A daemon core on a manual scheduler, a real database, real launches of `/usr/bin/true`.
@Suite struct OtherUserLaunchTests {
    @Test func anotherUsersTargetIsNeverLaunched() async throws {
        let fixture = try BackgroundSweepTests.Fixture(policy: RelaunchPolicy(limit: 3, window: 600, pickup: 10, expiry: 100))
        let other = DaemonCore.AppKey(uid: getuid() &+ 1, appID: "org.example.someone-else")
        let fingerprint = try #require(FileFingerprint.of(BackgroundSweepTests.executable))
        try fixture.store.register(
            LaunchTarget(
                uid: other.uid, appID: other.appID, executable: BackgroundSweepTests.executable, arguments: [],
                workingDirectory: "/", environment: [:], unit: nil, fingerprint: fingerprint, registeredAt: 0))

        // Asked three times (as events for it would): never launched, the refusal recorded once.
        for _ in 0..<3 { fixture.core.considerLaunch(other) }
        await fixture.drain()
        #expect(try fixture.store.launches(uid: other.uid, appID: other.appID).isEmpty)
        let refusals = try fixture.store.records().filter { $0.uid == other.uid && $0.appID == other.appID }
        #expect(refusals.map(\.what) == ["not launched: other-user"])

        // The daemon's own user's target, the same executable: launched.
        fixture.core.considerLaunch(fixture.key)
        #expect(fixture.launches == 1)
        #expect(try fixture.store.records().contains { $0.appID == fixture.key.appID && $0.what.hasPrefix("launched ") })
    }
}

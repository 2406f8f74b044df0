import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// What else goes through locationd: `locationctl locate`/`track` with no source named, and
/// `monitoredRegions` of an app across its launches.
@Suite(.serialized) struct ThroughTheDaemonTests {
    @Test func trackWithoutASourceIsServedByTheDaemon() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "10.5,20.25"])
        let track = try await harness.run("locationctl", ["track", "--limit", "2", "--format", "csv"])
        #expect(track.status == 0, "\(track)")
        #expect(track.stdout.contains("10.5") && track.stdout.contains("20.25"), "\(track)")
        // locationctl is the app `locationctl` through the daemon too: its decision applies.
        let deny = try await harness.run("locationctl", ["authorize", "locationctl", "deny"])
        #expect(deny.status == 0, "\(deny)")
        let denied = try await harness.run("locationctl", ["locate"])
        #expect(denied.status == 77, "\(denied)")
    }

    @Test func monitoredRegionsOutliveTheProcess() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let plist = try harness.infoPlist(bundle: "org.example.regions")
        let extra = ["CORELOCATION_INFO_PLIST": plist]
        let first = try RunningApp(harness, ["region", "48.8584", "2.2945", "200", "tower", "--seconds", "20"], extra: extra)
        #expect(await first.wait { $0.contains { $0.hasPrefix("state ") && $0.hasSuffix("tower 1") } }, "\(first.lines.withLock { $0 })")
        await first.stop()
        let second = try RunningApp(harness, ["regions", "--seconds", "5"], extra: extra)
        #expect(await second.wait { $0.contains { $0.hasPrefix("monitored ") && $0.hasSuffix(" tower") } }, "\(second.lines.withLock { $0 })")
        // Another app does not see them (decision 0011, boundary 2).
        let other = try RunningApp(
            harness, ["regions", "--seconds", "3"], extra: ["CORELOCATION_INFO_PLIST": try harness.infoPlist(bundle: "org.example.other")])
        #expect(await other.wait { $0.contains { $0.hasPrefix("services ") } })
        _ = await Polling.until(timeout: 10) { !other.process.isRunning }
        #expect(!other.lines.withLock { $0 }.contains { $0.hasPrefix("monitored ") }, "\(other.lines.withLock { $0 })")
    }
}

import CoreLocationGPSDTestSupport
import CoreLocationDaemonProtocol
import Foundation
import Testing

/// Receivers that are not there when locationd starts, go away and come back: a real gpsd 3.22
/// started after the daemon and restarted, a serial receiver (a pseudo-terminal) plugged in later,
/// unplugged and plugged in again. One daemon process throughout; the app never restarts.
@Suite(.serialized) struct SourcesComeAndGoTests {
    /// `locationctl sources` through the daemon, until `predicate` holds for its output (bounded).
    @discardableResult
    func waitForSources(_ harness: DaemonHarness, timeout: Double = 15, _ predicate: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try await harness.run("locationctl", ["sources"]).stdout
            if predicate(last) { return last }
            await Polling.pause(0.2)
        }
        return last
    }

    func authorizedApp(_ harness: DaemonHarness, bundle: String) async throws -> RunningApp {
        let allow = try await harness.run("locationctl", ["authorize", bundle, "when-in-use"])
        #expect(allow.status == 0, "\(allow)")
        let plist = try harness.infoPlist(bundle: bundle)
        return try RunningApp(harness, ["updates", "--seconds", "60"], extra: ["CORELOCATION_INFO_PLIST": plist])
    }

    @Test(.enabled(if: gpsdPath != nil, "needs Debian package gpsd"))
    func gpsdStartedAfterTheDaemonAndRestartedIsPickedUp() async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        let port = try freeLoopbackPort()
        let harness = try DaemonHarness()
        let daemon = try await harness.start(["--source", "gpsd://127.0.0.1:\(port)"])
        let app = try await authorizedApp(harness, bundle: "org.example.gpsd")

        // No gpsd yet: the source is powered (the app wants updates) and says why nothing comes.
        let waiting = try await waitForSources(harness) { $0.contains("powered") && $0.contains("unavailable") }
        #expect(waiting.contains("gpsd://127.0.0.1:\(port)") && waiting.contains("unavailable"), "\(waiting)")

        var gpsd = try GPSDProcess(port: port, feedPort: feed.port)
        try gpsd.waitUntilListening()
        feed.startPumping(interval: 0.2) { _ in NMEAEpoch.sentences() }
        #expect(await app.wait(timeout: 20) { $0.contains { $0.hasPrefix("location ") && $0.hasSuffix(NMEAEpoch.expected) } },
                "\(app.lines.withLock { $0 })\n\(harness.logText)")
        let receiving = try await waitForSources(harness) { $0.contains("receiving") }
        #expect(receiving.contains("receiving"), "\(receiving)")

        // gpsd restarts: the daemon reports it gone, then carries on by itself.
        gpsd.terminate()
        let gone = try await waitForSources(harness) { $0.contains("unavailable") }
        #expect(gone.contains("unavailable"), "\(gone)")
        let before = app.count("location")
        gpsd = try GPSDProcess(port: port, feedPort: feed.port)
        try gpsd.waitUntilListening()
        #expect(await app.wait(timeout: 20) { $0.filter { $0.hasPrefix("location ") }.count >= before + 3 }, "\(app.lines.withLock { $0 })")
        #expect(daemon.isRunning)
        gpsd.terminate()
    }

    @Test func aSerialReceiverPluggedInLaterIsPickedUpAndComesBack() async throws {
        let harness = try DaemonHarness()
        let device = harness.directory + "/ttyGPS0"
        let receiver = PlugInReceiver(path: device)
        let daemon = try await harness.start(["--source", "serial:\(device)?baud=9600"])
        let app = try await authorizedApp(harness, bundle: "org.example.serial")
        let absent = try await waitForSources(harness) { $0.contains("unavailable") }
        #expect(absent.contains("serial:\(device)") || absent.contains(device), "\(absent)")
        #expect(absent.contains("unavailable"), "\(absent)")

        try receiver.plugIn()
        #expect(await app.wait(timeout: 20) { $0.contains { $0.hasPrefix("location ") && $0.hasSuffix(NMEAEpoch.expected) } },
                "\(app.lines.withLock { $0 })\n\(harness.logText)")

        receiver.unplug()
        let unplugged = try await waitForSources(harness) { $0.contains("unavailable") }
        #expect(unplugged.contains("unavailable"), "\(unplugged)")
        let before = app.count("location")
        try receiver.plugIn()
        #expect(await app.wait(timeout: 20) { $0.filter { $0.hasPrefix("location ") }.count >= before + 3 }, "\(app.lines.withLock { $0 })")
        #expect(daemon.isRunning)
    }
}

import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issues 11 and 13 with real processes: beacon regions through locationd (decision 0050). The
/// daemon watches the app's beacon region with its own scanner (here a recorded-advertisement
/// replay, `CORELOCATION_BEACONS=simulate:FILE`, which starts when the region is first
/// monitored); the app is killed before the beacon is heard, and locationd launches it for the
/// entry, which its delegate hears once.
@Suite(.serialized) struct BeaconRelaunchTests {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// One iBeacon of `uuid` (major 1, minor 2), heard at 10 Hz from `from` to `to` seconds after
    /// the replay starts; nothing before. The replay loops; `until` stretches the loop with one
    /// advert of another UUID at that time, so the beacon is silent from `to` to the next `from`.
    static func recording(in harness: DaemonHarness, from: Double, to: Double, until: Double? = nil) throws -> String {
        let data = "0215" + uuid.replacingOccurrences(of: "-", with: "").lowercased() + "0001" + "0002" + "c5"
        var lines = ["# BeaconRelaunchTests: one beacon, silent until \(from) s"]
        var t = from
        while t <= to {
            lines.append(
                #"{"t":\#(String(format: "%.1f", t)),"address":"5A:00:00:00:00:01","rssi":-60,"manufacturer":{"004c":"\#(data)"}}"#)
            t += 0.1
        }
        if let until {
            let other = "0215" + String(repeating: "0", count: 31) + "1" + "0001" + "0001" + "c5"
            lines.append(
                #"{"t":\#(String(format: "%.1f", until)),"address":"5A:00:00:00:00:02","rssi":-60,"manufacturer":{"004c":"\#(other)"}}"#)
        }
        let path = harness.directory + "/adverts.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts the app (with no scanner of its own: what it hears comes from the daemon) and
    /// SIGKILLs it once locationd holds its launch target (and its log has a line starting `ready`).
    static func runAndKill(
        _ harness: DaemonHarness, _ arguments: [String], plist: String, log: String, ready: String? = nil
    ) async throws {
        let app = try RunningApp(
            harness, arguments + ["--log", log, "--seconds", "90"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                let running = await BackgroundRelaunchTests.background(harness)?.targets.first?.state == "running"
                return running && (ready.map { ready in BackgroundRelaunchTests.lines(log).contains { $0.hasPrefix(ready) } } ?? true)
            }, "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        kill(app.process.processIdentifier, SIGKILL)
        _ = await RunningApp.waitGone(app.process.processIdentifier, timeout: 5)
    }

    /// Then locationd is killed and restarted: the region is watched again in the state the app
    /// was told (inside), so the replay's beacon, heard again from the start, is no new entry.
    @Test func killedAppIsRelaunchedForItsBeaconRegionsEntryAndHearsItOnce() async throws {
        let harness = try DaemonHarness()
        // Silent for 25 s after the region is first monitored: the app is started and killed within that time (15 s
        // was once too short on a loaded machine).
        let adverts = try Self.recording(in: harness, from: 25, to: 35)
        let arguments = ["--simulate", "48.8584,2.2945", "--launcher", "exec", "--relaunch-pickup", "5"]
        let daemonEnvironment = ["CORELOCATION_BEACONS": "simulate:" + adverts]
        try await harness.start(arguments, extra: daemonEnvironment)
        defer { if let pid = harness.process.withLock({ $0?.processIdentifier }) { kill(pid, SIGKILL) } }
        // A stored decision (the headless default holds for one daemon run only), so the app is
        // authorized across the restart below.
        #expect(try await harness.run("locationctl", ["authorize", "org.example.beacon", "when-in-use"]).status == 0)
        let plist = try harness.infoPlist(bundle: "org.example.beacon")
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        try await Self.runAndKill(harness, ["beacon-region", Self.uuid, "shop"], plist: plist, log: log)
        #expect(BackgroundRelaunchTests.events(log).isEmpty, "killed before the beacon was heard")

        // The beacon is heard: locationd stores the entry and starts the app, whose delegate hears it.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 55) { BackgroundRelaunchTests.events(log) == ["enter"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(BackgroundRelaunchTests.launches(log).map(\.reason) == ["none", "location"])
        #expect(harness.logText.contains("kind=beacon-enter"), "\(harness.logText)")
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                await BackgroundRelaunchTests.background(harness)?.targets.first?.pending == 0
            })
        await Polling.pause(2)
        #expect(BackgroundRelaunchTests.events(log) == ["enter"])
        // The relaunched app found its region kept by the daemon (monitoredRegions) and did not fail.
        #expect(!BackgroundRelaunchTests.lines(log).contains { $0.hasPrefix("failed ") })
        let regions = try await harness.run(
            "CoreLocationAppProbe", ["regions", "--seconds", "1"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(regions.stdout.contains("monitored ") && regions.stdout.contains(" shop"), "\(regions)")
        // requestState is answered by the daemon's session: inside (1); a region it does not watch
        // fails as kCLErrorRegionMonitoringFailure (5).
        let state = try await harness.run(
            "CoreLocationAppProbe", ["beacon-state", Self.uuid, "shop", "--seconds", "1"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(state.stdout.split(separator: "\n").contains { $0.hasPrefix("state ") && $0.hasSuffix(" shop 1") }, "\(state)")
        let unknown = try await harness.run(
            "CoreLocationAppProbe", ["beacon-state", Self.uuid, "nowhere", "--seconds", "1"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(unknown.stdout.split(separator: "\n").contains { $0.hasPrefix("failed ") && $0.hasSuffix(" nowhere 5") }, "\(unknown)")

        try await harness.killDaemon()
        try await harness.startAndWait(arguments, extra: daemonEnvironment)
        // The replay starts again with the region's session: silent 25 s, then the beacon (inside
        // already: no entry), within 40 s of the restart (no exit either).
        await Polling.pause(32)
        #expect(BackgroundRelaunchTests.events(log) == ["enter"], "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        let restored = try await harness.run(
            "CoreLocationAppProbe", ["regions", "--seconds", "1"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(restored.stdout.contains(" shop"), "\(restored)")
    }

    /// A `CLMonitor`'s beacon condition through locationd (decision 0053): the app is killed before
    /// the beacon is heard; locationd stores the change for the monitor by name and launches the
    /// app, whose monitor (made again, its condition found) reports `satisfied` once, and, with the
    /// beacon silent for 30 s, `unsatisfied` while it runs.
    @Test func killedAppsMonitorHearsItsBeaconConditionOnce() async throws {
        let harness = try DaemonHarness()
        let adverts = try Self.recording(in: harness, from: 25, to: 30, until: 90)
        try await harness.start(
            ["--simulate", "48.8584,2.2945", "--launcher", "exec", "--relaunch-pickup", "5"],
            extra: ["CORELOCATION_BEACONS": "simulate:" + adverts])
        defer { if let pid = harness.process.withLock({ $0?.processIdentifier }) { kill(pid, SIGKILL) } }
        #expect(try await harness.run("locationctl", ["authorize", "org.example.beacon", "when-in-use"]).status == 0)
        let plist = try harness.infoPlist(bundle: "org.example.beacon")
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        try await Self.runAndKill(
            harness, ["monitor", "shop", "beacon", Self.uuid, "door"], plist: plist, log: log, ready: "monitoring ")
        #expect(MonitorRelaunchTests.conditions(log).isEmpty, "killed before the beacon was heard")

        #expect(
            await BackgroundRelaunchTests.wait(timeout: 50) { MonitorRelaunchTests.conditions(log) == ["satisfied"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(BackgroundRelaunchTests.launches(log).map(\.reason) == ["none", "location"])
        #expect(harness.logText.contains("kind=monitor:shop"), "\(harness.logText)")
        let monitoring = BackgroundRelaunchTests.lines(log).filter { $0.hasPrefix("monitoring ") }.map {
            String($0.split(separator: " ").last ?? "")
        }
        #expect(monitoring == ["added", "found"])
        // The beacon falls silent at 30 s (until the loop comes round at 115 s): unsatisfied 30 s
        // later, to the running process.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 45) {
                MonitorRelaunchTests.conditions(log) == ["satisfied", "unsatisfied"]
            }, "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(BackgroundRelaunchTests.launches(log).count == 2)
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                await BackgroundRelaunchTests.background(harness)?.targets.first?.pending == 0
            })
        // A beacon region of the app is not listed among its monitor's conditions, nor the other way round.
        let regions = try await harness.run(
            "CoreLocationAppProbe", ["regions", "--seconds", "1"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        #expect(!regions.stdout.contains(" door"), "\(regions)")
    }

    /// An app the user denied cannot monitor a beacon region through the daemon: the delegate hears
    /// `regionMonitoringDenied`, and nothing is kept.
    @Test func deniedAppIsRefused() async throws {
        let harness = try DaemonHarness()
        let adverts = try Self.recording(in: harness, from: 1, to: 5)
        try await harness.start(
            ["--simulate", "48.8584,2.2945", "--launcher", "exec"], extra: ["CORELOCATION_BEACONS": "simulate:" + adverts])
        #expect(try await harness.run("locationctl", ["authorize", "org.example.denied", "deny"]).status == 0)
        let plist = try harness.infoPlist(bundle: "org.example.denied")
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        _ = try RunningApp(
            harness, ["beacon-region", Self.uuid, "shop", "--log", log, "--seconds", "20"],
            extra: ["CORELOCATION_INFO_PLIST": plist, "CORELOCATION_BEACONS": "off"])
        // kCLErrorRegionMonitoringDenied = 4.
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                BackgroundRelaunchTests.lines(log).contains { $0.hasPrefix("failed ") && $0.hasSuffix(" shop 4") }
            }, "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        await Polling.pause(6)
        #expect(BackgroundRelaunchTests.events(log).isEmpty)
    }
}

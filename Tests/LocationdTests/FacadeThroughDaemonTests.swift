import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// The façade's key behaviours, run against the in-process engine and against locationd.
@Suite(.serialized) struct FacadeThroughDaemonTests {
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case inProcess, daemon
        var testDescription: String { rawValue }
    }

    /// Environment for the app: in process it simulates itself; through the daemon the daemon does.
    func setUp(_ engine: Engine, point: String = "48.8584,2.2945") async throws -> (DaemonHarness, [String: String]) {
        let harness = try DaemonHarness()
        switch engine {
        case .inProcess:
            return (harness, ["CORELOCATION_DAEMON": "off", "CORELOCATION_SIMULATE": point])
        case .daemon:
            try await harness.start(["--simulate", point])
            return (harness, ["CORELOCATION_DAEMON": "require"])
        }
    }

    @Test(arguments: Engine.allCases) func requestLocationAnswers(_ engine: Engine) async throws {
        let (harness, extra) = try await setUp(engine)
        let plist = try harness.infoPlist(bundle: "org.example.probe")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: extra.merging(["CORELOCATION_INFO_PLIST": plist]) { $1 })
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("location 48.858400 2.294500"), "\(run)")
    }

    @Test(arguments: Engine.allCases) func storedDenialApplies(_ engine: Engine) async throws {
        let (harness, extra) = try await setUp(engine)
        let plist = try harness.infoPlist(bundle: "org.example.probe")
        let deny = try await harness.run("locationctl", ["authorize", "org.example.probe", "deny"], extra: extra)
        #expect(deny.status == 0, "\(deny)")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: extra.merging(["CORELOCATION_INFO_PLIST": plist]) { $1 })
        #expect(run.status == 4, "\(run)")
        #expect(!run.stdout.contains("location "), "\(run)")
    }

    @Test(arguments: Engine.allCases) func standardUpdatesAndRegionState(_ engine: Engine) async throws {
        let (harness, extra) = try await setUp(engine)
        let plist = try harness.infoPlist(bundle: "org.example.region")
        let app = try RunningApp(
            harness, ["region", "48.8584", "2.2945", "200", "tower", "--seconds", "20"],
            extra: extra.merging(["CORELOCATION_INFO_PLIST": plist]) { $1 })
        // CLRegionState.inside = 1.
        #expect(await app.wait { $0.contains { $0.hasPrefix("state ") && $0.hasSuffix("tower 1") } }, "\(app.lines.withLock { $0 })")
        let updates = try RunningApp(harness, ["updates", "--seconds", "20"], extra: extra.merging(["CORELOCATION_INFO_PLIST": plist]) { $1 })
        #expect(await updates.wait { $0.contains { $0.hasPrefix("location ") } }, "\(updates.lines.withLock { $0 })")
    }

    /// `locationctl authorize … deny` through the daemon: the running app hears it, and no fix
    /// reaches its delegate after the command returned.
    @Test func denyThroughTheDaemonStopsFixesAtOnce() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "drive"])
        let plist = try harness.infoPlist(bundle: "org.example.tracker")
        let app = try RunningApp(harness, ["updates", "--seconds", "30"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(await app.wait { $0.filter { $0.hasPrefix("location ") }.count >= 2 }, "\(app.lines.withLock { $0 })")
        let deny = try await harness.run("locationctl", ["authorize", "org.example.tracker", "deny"])
        let returned = ProcessInfo.processInfo.systemUptime
        #expect(deny.status == 0, "\(deny)")
        // kCLAuthorizationStatusDenied = 2.
        #expect(await app.wait { $0.contains { $0.hasPrefix("authorization ") && $0.hasSuffix(" 2") } }, "\(app.lines.withLock { $0 })")
        await Polling.pause(2.5)
        #expect(app.times("location").allSatisfy { $0 < returned }, "\(app.lines.withLock { $0 })")
    }

    /// `allowsBackgroundLocationUpdates` and `showsBackgroundLocationIndicator` (decision 0047): `locationctl status`
    /// lists `background` and `indicator` beside the updates of the app that set them, and an app whose Info.plist
    /// lacks the `location` background mode has the setting refused (its updates go on, listed plain).
    @Test func statusListsTheBackgroundIndicator() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "drive"])
        let declared = try harness.infoPlist(bundle: "org.example.indicator", extra: ["UIBackgroundModes": ["location"]])
        let plain = try harness.infoPlist(bundle: "org.example.plain")
        let arguments = ["updates", "--background", "--indicator", "--seconds", "30"]
        let app = try RunningApp(harness, arguments, extra: ["CORELOCATION_INFO_PLIST": declared])
        let other = try RunningApp(harness, arguments, extra: ["CORELOCATION_INFO_PLIST": plain])
        defer {
            app.process.terminate()
            other.process.terminate()
        }
        #expect(await app.wait { $0.contains { $0.hasPrefix("background ") && $0.hasSuffix(" true") } }, "\(app.lines.withLock { $0 })")
        #expect(await other.wait { $0.contains { $0.hasPrefix("background ") && $0.hasSuffix(" false") } }, "\(other.lines.withLock { $0 })")
        #expect(await other.wait { $0.contains { $0.hasPrefix("location ") } }, "\(other.lines.withLock { $0 })")
        var listed = ""
        for _ in 0..<50 {
            listed = try await harness.run("locationctl", ["status"]).stdout
            if listed.contains(": background, indicator, updates;") && listed.contains(": updates;") { break }
            await Polling.pause(0.2)
        }
        #expect(listed.contains(": background, indicator, updates;"), "\(listed)")
        #expect(listed.contains(": updates;"), "\(listed)")
    }

    /// `locationctl services off`: every app reads services disabled and authorization denied.
    @Test func servicesOffDeniesEveryApp() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let off = try await harness.run("locationctl", ["services", "off"])
        #expect(off.status == 0, "\(off)")
        let plist = try harness.infoPlist(bundle: "org.example.probe")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(run.status == 4, "\(run)")
        let status = try await harness.run("locationctl", ["status"])
        #expect(status.stdout.contains("location services off"), "\(status)")
        let on = try await harness.run("locationctl", ["services", "on"])
        #expect(on.status == 0, "\(on)")
        let again = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(again.status == 0, "\(again)")
    }
}

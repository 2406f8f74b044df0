import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Every `locationctl` command works the same with the engine in its own process and through a real locationd
/// (issue 36): the same command line, the same output, and the same decision applies — the one the user stored
/// where that way keeps it (`locationctl authorize` writes to locationd's database when it runs). Every run here
/// has the default policy `deny`, so only the stored decision authorizes: with locationd running and
/// `authorize locationctl always` stored, `monitor --region` and `--significant` exited 77 before.
@Suite(.serialized) struct LocationctlBothWaysTests {
    enum Way: String, CaseIterable, CustomTestStringConvertible {
        case inProcess, throughLocationd
        var testDescription: String { rawValue }
    }

    static let place = "10.5,20.25"

    /// A harness for `way` with `place` (or `simulate`) as the only source, and what every run adds to its
    /// environment; `apps` are authorized Always where `way` keeps decisions.
    static func setUp(
        _ way: Way, simulate: String = place, daemonArguments: [String] = [], apps: [String] = ["locationctl"]
    ) async throws -> (DaemonHarness, [String: String]) {
        let harness = try DaemonHarness()
        var extra = ["CORELOCATION_DEFAULT_POLICY": "deny"]
        switch way {
        case .inProcess:
            extra["CORELOCATION_DAEMON"] = "off"
            extra["CORELOCATION_SIMULATE"] = simulate
        case .throughLocationd:
            try await harness.start(["--simulate", simulate] + daemonArguments, extra: extra)
            extra["CORELOCATION_DAEMON"] = "require"
        }
        for app in apps {
            let authorize = try await harness.run("locationctl", ["authorize", app, "always"], extra: extra)
            try #require(authorize.status == 0, "\(authorize)")
            // Said by locationd when it stored the decision, else stored in the process's database.
            #expect(authorize.stdout.contains("(locationd)") == (way == .throughLocationd), "\(authorize)")
        }
        return (harness, extra)
    }

    @Test(arguments: Way.allCases) func trackAndLocate(way: Way) async throws {
        let (harness, extra) = try await Self.setUp(way)
        let track = try await harness.run("locationctl", ["track", "--limit", "2", "--format", "csv"], extra: extra)
        #expect(track.status == 0, "\(track)")
        let rows = track.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 2, "\(track)")
        #expect(rows.allSatisfy { $0.contains(",10.5,20.25,") }, "\(track)")
        let locate = try await harness.run("locationctl", ["locate"], extra: extra)
        #expect(locate.status == 0, "\(locate)")
        #expect(locate.stdout.contains("+10.500000, +20.250000"), "\(locate)")
        // The stored decision is what authorizes: taken back, both commands stop with EX_NOPERM.
        let deny = try await harness.run("locationctl", ["authorize", "locationctl", "deny"], extra: extra)
        #expect(deny.status == 0, "\(deny)")
        let denied = try await harness.run("locationctl", ["locate"], extra: extra)
        #expect(denied.status == 77, "\(denied)")
        #expect(denied.stderr.contains("not authorized"), "\(denied)")
    }

    /// The user's report: `monitor --region` and `--significant` with the decision stored.
    @Test(arguments: Way.allCases) func monitorRegionsAndSignificantChanges(way: Way) async throws {
        let (harness, extra) = try await Self.setUp(way)
        let monitor = try RunningApp(
            harness, ["monitor", "--region", "10.5,20.25,100,here", "--region", "11,20.25,100,away", "--significant"],
            extra: extra, tool: "locationctl")
        let seen = await monitor.wait(timeout: 30) { lines in
            lines.contains { $0.contains("state       here inside  +10.500000, +20.250000") }
                && lines.contains { $0.contains("state       away outside  +10.500000, +20.250000") }
                && lines.contains { $0.contains("significant  +10.500000, +20.250000") }
        }
        #expect(seen, "\(monitor.lines.withLock { $0 })\n\(harness.logText)")
        #expect(monitor.process.isRunning, "monitor ended before it was stopped")
        await monitor.stop()
    }

    /// Visits need a stay: in process a recording replays on its own timeline (`--simulate … --speed max`,
    /// decision 0020); locationd plays it at 20×. Either way the command prints the arrival and then the completed
    /// visit at the stop. Both ways use the default visit rule (a 300 s stay, 60 s away): a route played at a
    /// speed other than 1 carries the simulation's time (decision 0062's replay rule), so the visit detector
    /// counts the recording's seconds at 20× too. The 5 s stay this test once gave locationd made up for fixes
    /// stamped with the wall clock (20 recorded seconds per second); on the recording's seconds the walk's
    /// first 5 s (7 m, inside the 30 m core) are a stay, and the visit was reported at the start of the walk.
    @Test func monitorVisitsBothWays() async throws {
        let directory = try ScratchDirectory("visits")
        let gpx = directory.path("errand.gpx")
        try Data(ErrandWalk(stay: 600, creator: "LocationdTests").gpx.utf8).write(to: URL(fileURLWithPath: gpx))

        let (local, localExtra) = try await Self.setUp(.inProcess)
        let replay = try await local.run(
            "locationctl", ["monitor", "--visits", "--simulate", gpx, "--speed", "max", "--format", "json"],
            extra: localExtra)
        #expect(replay.status == 0, "\(replay)")
        try Self.expectArrivalThenVisit(replay.stdout.split(separator: "\n").map(String.init))

        let (daemon, daemonExtra) = try await Self.setUp(
            .throughLocationd, simulate: gpx,
            daemonArguments: ["--simulate-speed", "20", "--monitoring-probe-interval", "0"])
        let monitor = try RunningApp(daemon, ["monitor", "--visits", "--format", "json"], extra: daemonExtra, tool: "locationctl")
        // The walk takes 51 s at 20× and the visit ends about 47 s in; the bound is for a loaded machine.
        let completed = await monitor.wait(timeout: 150) { lines in
            lines.contains { $0.contains("\"event\":\"visit\"") && !$0.contains("\"departure\":null") }
        }
        #expect(completed, "\(monitor.lines.withLock { $0 })\n\(daemon.logText)")
        await monitor.stop()
        try Self.expectArrivalThenVisit(monitor.lines.withLock { $0 })
    }

    static func expectArrivalThenVisit(_ lines: [String]) throws {
        let visits = try lines.compactMap { line -> [String: Any]? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["event"] as? String == "visit" ? object : nil
        }
        try #require(visits.count >= 2, "\(lines)")
        #expect(visits[0]["departure"] is NSNull, "an arrival first: \(visits)")
        #expect(!(visits[1]["departure"] is NSNull), "then the completed visit: \(visits)")
        // The stop is on the equator, 300 m east of 0° (the walk's 107 steps of 2.8 m).
        let longitude = try #require(visits[1]["longitude"] as? Double)
        #expect(abs(try #require(visits[1]["latitude"] as? Double)) < 1e-4)
        #expect(abs(longitude - 0.00269) < 5e-4, "\(visits)")
    }

    /// True heading needs a location: -1 without one, a bearing once the engine (either) gave a fix.
    @Test(arguments: Way.allCases) func headingHasTrueHeadingFromTheEngine(way: Way) async throws {
        let (harness, extra) = try await Self.setUp(way)
        let heading = try await harness.run(
            "locationctl", ["heading", "--rotate", "10", "--limit", "20", "--format", "json"], extra: extra)
        #expect(heading.status == 0, "\(heading)")
        let trueHeadings = heading.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["trueHeading"] as? Double
        }
        #expect(trueHeadings.count == 20, "\(heading)")
        #expect(trueHeadings.contains { $0 >= 0 }, "\(heading)")
    }

    /// The live reporter is its own app (`locationctl.report`, decision 0045): its decision applies either way.
    @Test(arguments: Way.allCases) func reportLive(way: Way) async throws {
        let (harness, extra) = try await Self.setUp(way, apps: ["locationctl.report"])
        let report = try RunningApp(harness, ["report", "--dry-run", "--format", "json"], extra: extra, tool: "locationctl")
        let decided = await report.wait(timeout: 30) { lines in
            lines.contains { $0.contains("\"reason\":\"first fix\"") && $0.contains("\"lat\":10.5") }
        }
        #expect(decided, "\(report.lines.withLock { $0 })\n\(harness.logText)")
        await report.stop()
        // SIGTERM ends it with the summary.
        #expect(await report.wait(timeout: 10) { $0.contains { $0.contains("\"type\":\"summary\"") } })
    }

    /// `status` shows the engine that serves the command: this process's after a probe, or locationd's.
    @Test(arguments: Way.allCases) func status(way: Way) async throws {
        let (harness, extra) = try await Self.setUp(way)
        let status = try await harness.run("locationctl", ["status", "--probe", "1"], extra: extra)
        #expect(status.status == 0, "\(status)")
        switch way {
        case .inProcess:
            #expect(status.stdout.contains("simulated  kind simulated"), "\(status)")
            #expect(status.stdout.contains("This app (locationctl): always"), "\(status)")
        case .throughLocationd:
            #expect(status.stdout.contains("locationd (pid "), "\(status)")
            #expect(status.stdout.contains("locationctl (uid \(getuid())): always"), "\(status)")
        }
    }

    /// Ranging runs in the process either way (the scanner is the app's); real beacons say where the user is, so
    /// the stored decision applies. BlueZ is python-dbusmock's on a private bus, with one adapter.
    @Test(
        .enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"), arguments: Way.allCases)
    func beaconsNeedTheStoredDecision(way: Way) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        try await bus.startMock(name: "org.bluez", arguments: ["--template", "bluez5"])
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../CoreLocationBeaconsTests/Fixtures/bluez_driver.py").standardized.path
        let adapter = try await bus.runScript(driver, arguments: ["adapter", "hci0"])
        try #require(adapter.status == 0, "\(adapter.output)")
        var (harness, extra) = try await Self.setUp(way)
        extra["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        let allowed = try await harness.run("locationctl", ["beacons", "--duration", "2.5"], extra: extra)
        #expect(allowed.status == 0, "\(allowed)")
        #expect(allowed.stdout.contains("beacon(s)"), "one ranging result a second: \(allowed)")
        let deny = try await harness.run("locationctl", ["authorize", "locationctl", "deny"], extra: extra)
        #expect(deny.status == 0, "\(deny)")
        let denied = try await harness.run("locationctl", ["beacons", "--duration", "1"], extra: extra)
        #expect(denied.status == 77, "\(denied)")
        #expect(denied.stdout.isEmpty, "\(denied)")
        // A recording reveals nothing about the user: replayed, it needs no decision (as simulated positions).
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/beacons/demo.jsonl").standardized.path
        let replay = try await harness.run(
            "locationctl", ["beacons", "--simulate", demo, "--format", "json", "--duration", "1.5"], extra: extra)
        #expect(replay.status == 0, "\(replay)")
        #expect(replay.stdout.contains("\"minor\":1"), "\(replay)")
    }
}

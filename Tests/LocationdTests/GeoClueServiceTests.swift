import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// locationd as `org.freedesktop.GeoClue2` (issue 38, decision 0074), tried with real clients on a private bus:
/// Debian's `where-am-i` (geoclue-2-demo, through libgeoclue) and a GDBus client (`Peers/geoclue_peer.py`, python3-gi).
/// The oracle for a position is `locationctl locate` on the same daemon and source.
@Suite(
    .enabled(if: GeoClueClients.areAvailable, "needs Debian packages geoclue-2-demo, dbus, python3-dbusmock and python3-gi"),
    .timeLimit(.minutes(3))
)
struct GeoClueServiceTests {
    static let whereAmI = "/usr/libexec/geoclue-2.0/demos/where-am-i"
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/geoclue_peer.py").path
    static let python = "/usr/bin/python3"
    /// The executable the kernel names for the peer (`/proc/PID/exe`): the app `locationctl authorize` decides for.
    static let pythonExecutable = URL(fileURLWithPath: python).resolvingSymlinksInPath().path

    /// A bus, and locationd serving GeoClue2 on it over `arguments`' sources.
    struct Scene {
        let bus: PrivateBus
        let harness: DaemonHarness
        var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": bus.address] }

        init(_ arguments: [String], extra: [String: String] = [:]) async throws {
            bus = try PrivateBus()
            harness = try DaemonHarness()
            try await harness.start(arguments + ["--geoclue", bus.address], extra: extra)
            let harness = harness
            #expect(await harness.logContains("Serving GeoClue2", timeout: 10), "\(harness.logText)")
        }

        /// `where-am-i -t SECONDS` and what it printed: the first location's latitude, longitude and accuracy.
        func whereAmI(_ arguments: [String] = []) async throws -> (fix: (Double, Double, Double)?, output: String) {
            let run = try await harness.run(GeoClueServiceTests.whereAmI, ["-t", "4"] + arguments, extra: environment)
            let output = run.stdout + run.stderr
            func value(_ label: String) -> Double? {
                guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
                return Double(line.dropFirst(label.count).trimmingCharacters(in: CharacterSet(charactersIn: " °metrs")))
            }
            guard let latitude = value("Latitude:"), let longitude = value("Longitude:"), let accuracy = value("Accuracy:")
            else { return (nil, output) }
            return ((latitude, longitude, accuracy), output)
        }

        /// `locationctl locate` through the daemon: latitude, longitude, accuracy.
        func locate(_ arguments: [String] = []) async throws -> (Double, Double, Double) {
            let locate = try await harness.run("locationctl", ["locate", "--format", "json"] + arguments)
            let line = try #require(locate.stdout.split(separator: "\n").last, "\(locate)\n\(harness.logText)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                try #require(object["latitude"] as? Double), try #require(object["longitude"] as? Double),
                try #require(object["horizontalAccuracy"] as? Double)
            )
        }

        func authorize(_ app: String, _ decision: String, reduced: Bool = false) async throws {
            let result = try await harness.run("locationctl", ["authorize", app, decision] + (reduced ? ["--reduced"] : []))
            #expect(result.status == 0, "\(result)")
        }

        func peer(_ arguments: [String]) async throws -> [String] {
            let run = try await harness.run(GeoClueServiceTests.python, [GeoClueServiceTests.peer] + arguments, extra: environment)
            return run.stdout.split(separator: "\n").map(String.init)
        }

        func runningPeer(_ arguments: [String]) throws -> RunningApp {
            try RunningApp(harness, [GeoClueServiceTests.peer] + arguments, extra: environment, tool: GeoClueServiceTests.python)
        }
    }

    /// where-am-i prints, to its six decimals, the position and accuracy `locationctl locate` gives from the same
    /// source: a fixed simulated position, an NMEA receiver, an IP database.
    @Test(arguments: ["simulated", "nmea", "ip"])
    func whereAmIGetsWhatLocateGets(source: String) async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        var arguments: [String] = []
        var extra: [String: String] = [:]
        var expected: (Double, Double)
        switch source {
        case "simulated":
            arguments = ["--simulate", "48.8584,2.2945"]
            expected = (48.8584, 2.2945)
        case "nmea":
            feed.startPumping(interval: 0.2) { _ in NMEAEpoch.sentences(latitude: 47.3769, longitude: 8.5417) }
            arguments = ["--source", "tcp://127.0.0.1:\(feed.port)"]
            expected = (47.3769, 8.5417)
        default:
            arguments = ["--source", "ip:?address=81.2.69.160"]
            extra = [
                "CORELOCATION_IP_DATABASE": NetworkSourcesTests.cityDatabase,
                "CORELOCATION_NETWORK_SETTINGS": FileManager.default.temporaryDirectory.path + "/network-\(UUID()).json",
            ]
            // mmdblookup: 81.2.69.160 → 51.5142, -0.0931.
            expected = (51.5142, -0.0931)
        }
        let scene = try await Scene(arguments, extra: extra)
        try await scene.authorize("locationctl", "when-in-use")
        try await scene.authorize(Self.whereAmI, "when-in-use")
        let located = try await scene.locate()
        let (fix, output) = try await scene.whereAmI()
        let got = try #require(fix, "\(output)\n\(scene.harness.logText)")
        #expect(String(format: "%.6f", got.0) == String(format: "%.6f", located.0), "\(output)")
        #expect(String(format: "%.6f", got.1) == String(format: "%.6f", located.1), "\(output)")
        #expect(String(format: "%.6f", got.2) == String(format: "%.6f", located.2), "\(output)")
        #expect(abs(got.0 - expected.0) < 1e-4 && abs(got.1 - expected.1) < 1e-4, "\(output)")
    }

    /// A GDBus client hears `LocationUpdated(old, new)` for each fix, each new Location object holding it and the
    /// next signal naming it as the old one; after `Stop`, nothing, and `Active` is false.
    @Test func updatesComeUntilStop() async throws {
        let scene = try await Scene(["--simulate", "drive"])
        try await scene.authorize(Self.pythonExecutable, "when-in-use")
        let lines = try await scene.peer(["updates", "3"])
        let updates = lines.filter { $0.hasPrefix("update ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(updates.count == 3, "\(lines)\n\(scene.harness.logText)")
        try #require(updates.count == 3)
        #expect(updates[0][1] == "/")
        #expect(updates[1][1] == updates[0][2] && updates[2][1] == updates[1][2], "\(lines)")
        // The drive moves: three distinct fixes, in time order, each a real position (not 0,0).
        let stamps = updates.compactMap { Double($0[6]) }
        #expect(stamps == stamps.sorted() && Set(stamps).count == 3, "\(lines)")
        #expect(updates.allSatisfy { abs(Double($0[3]) ?? 0) > 1 && $0[5] == "5.0" }, "\(lines)")
        #expect(lines.contains("stopped active false"), "\(lines)")
        #expect(lines.contains("after-stop 0"), "\(lines)")
    }

    /// The thresholds, on a receiver moving 30 m a second (an NMEA feed at 1 Hz): with DistanceThreshold 100 m every
    /// update is at least 100 m (geodesic on the WGS-84 mean sphere, within 0.5 % of the ellipsoid) from the one
    /// before; with TimeThreshold 3 s, at least 3 s of fix time. Without them every fix is an update (30 m, 1 s).
    @Test(arguments: [(100, 0), (0, 3)])
    func thresholdsHoldUpdatesBack(distance: Int, seconds: Int) async throws {
        let feed = try NMEAFeed()
        defer { feed.close() }
        // 30 m a second northwards: 0.00027° of latitude.
        feed.startPumping(interval: 1) { k in NMEAEpoch.sentences(latitude: 47 + Double(k) * 0.00027, longitude: 8.5) }
        let scene = try await Scene(["--source", "tcp://127.0.0.1:\(feed.port)"])
        try await scene.authorize(Self.pythonExecutable, "when-in-use")
        let lines = try await scene.peer(["updates", "4", "\(distance)", "\(seconds)"])
        let updates = lines.filter { $0.hasPrefix("update ") }.map { $0.split(separator: " ").map(String.init) }
        try #require(updates.count == 4, "\(lines)\n\(scene.harness.logText)")
        let points = updates.compactMap { fields -> (Double, Double, Double)? in
            guard let lat = Double(fields[3]), let lon = Double(fields[4]), let time = Double(fields[6]) else { return nil }
            return (lat, lon, time)
        }
        try #require(points.count == 4)
        for (a, b) in zip(points, points.dropFirst()) {
            let metres = Self.haversine(a.0, a.1, b.0, b.1)
            #expect(metres >= Double(distance) * 0.995 && metres > 25, "\(metres) m between \(a) and \(b)")
            #expect(b.2 - a.2 >= Double(max(seconds, 1)) - 0.01, "\(b.2 - a.2) s between \(a) and \(b)")
        }
    }

    /// Great-circle distance on a sphere of the WGS-84 mean radius (within 0.5 % of the ellipsoid's).
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// `locationctl authorize … deny` stops a running client at once (Active false, no update after it), and its
    /// next `Start` is refused with AccessDenied.
    @Test func denyStopsARunningClientAtOnce() async throws {
        let scene = try await Scene(["--simulate", "drive"])
        try await scene.authorize(Self.pythonExecutable, "when-in-use")
        let client = try scene.runningPeer(["run", "30"])
        defer { client.process.terminate() }
        #expect(
            await DaemonHarness.eventually(timeout: 20) { client.lines.withLock { $0.filter { $0.hasPrefix("update") }.count >= 2 } },
            "\(client.lines.withLock { $0 })\n\(scene.harness.logText)")
        try await scene.authorize(Self.pythonExecutable, "deny")
        #expect(await DaemonHarness.eventually(timeout: 10) { client.lines.withLock { $0.contains("active false") } })
        let countAtDeny = client.lines.withLock { lines in lines.firstIndex(of: "active false") ?? -1 }
        try await Task.sleep(for: .seconds(2))
        let after = client.lines.withLock { Array($0.dropFirst(countAtDeny + 1)) }
        #expect(!after.contains { $0.hasPrefix("update") }, "\(after)")
        await client.stop()
        let again = try await scene.peer(["run", "1"])
        #expect(again == ["start-error org.freedesktop.DBus.Error.AccessDenied"], "\(again)")
    }

    /// Reduced accuracy: an app held at reduced accuracy, or asking for CITY, sees the engine's cell centre — the
    /// position `locationctl locate` gives under reduced accuracy.
    @Test func reducedAccuracyGivesTheCellCentre() async throws {
        let scene = try await Scene(["--simulate", "48.8584,2.2945"])
        try await scene.authorize("locationctl", "when-in-use", reduced: true)
        let cell = try await scene.locate()
        #expect(cell.2 >= 3000 && (abs(cell.0 - 48.8584) > 1e-4 || abs(cell.1 - 2.2945) > 1e-4), "\(cell)")

        try await scene.authorize(Self.whereAmI, "when-in-use", reduced: true)
        let held = try await scene.whereAmI()
        let heldFix = try #require(held.fix, "\(held.output)")
        #expect(String(format: "%.6f %.6f", heldFix.0, heldFix.1) == String(format: "%.6f %.6f", cell.0, cell.1), "\(held.output)")

        try await scene.authorize(Self.whereAmI, "when-in-use")
        let city = try await scene.whereAmI(["-a", "4"])
        let cityFix = try #require(city.fix, "\(city.output)")
        #expect(String(format: "%.6f %.6f", cityFix.0, cityFix.1) == String(format: "%.6f %.6f", cell.0, cell.1), "\(city.output)")
        let exact = try await scene.whereAmI(["-a", "8"])
        let exactFix = try #require(exact.fix, "\(exact.output)")
        #expect(String(format: "%.4f %.4f", exactFix.0, exactFix.1) == "48.8584 2.2945", "\(exact.output)")
    }

    /// A GeoClue agent (`AddAgent`) is asked for an app with no decision; its allowed level CITY is reduced
    /// accuracy. An agent that refuses leaves the app with AccessDenied.
    @Test(arguments: [true, false])
    func aGeoClueAgentDecides(allows: Bool) async throws {
        let scene = try await Scene(["--simulate", "48.8584,2.2945"])
        let agent = try scene.runningPeer(["agent", allows ? "true" : "false", allows ? "4" : "0"])
        defer { agent.process.terminate() }
        #expect(await DaemonHarness.eventually(timeout: 10) { agent.lines.withLock { $0.contains("registered") } })
        let result = try await scene.whereAmI()
        #expect(await DaemonHarness.eventually(timeout: 5) { agent.lines.withLock { $0.contains("asked where-am-i 8") } })
        await agent.stop()
        if allows {
            let fix = try #require(result.fix, "\(result.output)\n\(scene.harness.logText)")
            #expect(fix.2 >= 3000, "\(result.output)")
        } else {
            #expect(result.fix == nil && result.output.contains("AccessDenied"), "\(result.output)")
        }
    }

    /// No agent: the headless policy answers — a stored default of deny refuses, when-in-use allows.
    @Test func withoutAnAgentTheDefaultPolicyDecides() async throws {
        let scene = try await Scene(["--simulate", "48.8584,2.2945"])
        let deny = try await scene.harness.run("locationctl", ["authorize", "--default", "deny"])
        #expect(deny.status == 0, "\(deny)")
        let refused = try await scene.whereAmI()
        #expect(refused.fix == nil && refused.output.contains("AccessDenied"), "\(refused.output)")
        let allow = try await scene.harness.run("locationctl", ["authorize", "--default", "when-in-use"])
        #expect(allow.status == 0, "\(allow)")
        let allowed = try await scene.whereAmI()
        #expect(allowed.fix.map { String(format: "%.4f %.4f", $0.0, $0.1) } == "48.8584 2.2945", "\(allowed.output)")
    }

    /// Wrong types, read-only properties, unknown objects and another caller's client get D-Bus errors; `Start`
    /// 10^4 times is answered each time; a caller creating 300 clients gets 256 and then LimitsExceeded; callers'
    /// clients go when they leave the bus (one of them in the middle of a call); a where-am-i afterwards is served
    /// as before.
    @Test func badInputGetsErrorsAndBoundedClients() async throws {
        let scene = try await Scene(["--simulate", "48.8584,2.2945"])
        try await scene.authorize(Self.whereAmI, "when-in-use")
        let bad = try await scene.peer(["badinput"])
        #expect(
            bad == [
                "set-wrong-type org.freedesktop.DBus.Error.InvalidArgs",
                "set-read-only org.freedesktop.DBus.Error.PropertyReadOnly",
                "delete-wrong-type org.freedesktop.DBus.Error.InvalidArgs",
                "start-unknown org.freedesktop.DBus.Error.UnknownObject",
                "unknown-method org.freedesktop.DBus.Error.UnknownMethod",
                // Another caller's client is not there for it at all (its objects have their caller as audience).
                "start-others org.freedesktop.DBus.Error.UnknownObject",
                "read-others-client org.freedesktop.DBus.Error.UnknownObject",
                "delete-others org.freedesktop.DBus.Error.AccessDenied",
                "threshold 0",
            ], "\(bad)")
        let many = try await scene.peer(["startmany", "10000"])
        #expect(many == ["started 10000 errors 0", "left"], "\(many)")
        let flood = try await scene.peer(["flood", "300"])
        #expect(flood == ["made 256", "error org.freedesktop.DBus.Error.LimitsExceeded 44", "inuse false"], "\(flood)")
        // The flooding caller left: none of its clients is listed any more.
        let harness = scene.harness
        #expect(
            await DaemonHarness.eventually(timeout: 10) {
                guard let status = try? await harness.run("locationctl", ["status"]) else { return false }
                return !status.stdout.contains("geoclue:")
            })
        let after = try await scene.whereAmI()
        #expect(after.fix.map { String(format: "%.4f %.4f", $0.0, $0.1) } == "48.8584 2.2945", "\(after.output)")
    }
}

/// The real clients the suite runs: Debian's where-am-i, a private bus, GLib's introspection for the GDBus peer.
enum GeoClueClients {
    static var areAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: GeoClueServiceTests.whereAmI) && PrivateBus.isAvailable
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
    }
}

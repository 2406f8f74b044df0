import Foundation
import Testing

/// locationd hosts the network sources (docs/decisions/0038): on a machine with no receiver, a sources.conf naming
/// `ip:` (the database from CORELOCATION_IP_DATABASE, the address configured in the URL) answers
/// `locationctl locate --accuracy 3km` and a CLLocationManager app through the daemon, and `locationctl sources`
/// lists the source with its state. The database is MaxMind's City test database (Tests/CoreLocationNetworkTests).
@Suite struct NetworkSourcesTests {
    static let cityDatabase = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CoreLocationNetworkTests/Fixtures/mmdb/GeoIP2-City-Test.mmdb").standardized.path

    /// Polls `body` (a tool run) until `predicate` holds, at most `timeout` seconds, without blocking a pool thread
    /// between attempts.
    func poll(
        timeout: Double = 20, _ body: () async throws -> (status: Int32, stdout: String, stderr: String),
        until predicate: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try await body().stdout
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(200))
        }
        return last
    }

    @Test func ipFromSourcesConfAnswersLocateAndAppsThroughTheDaemon() async throws {
        let harness = try DaemonHarness()
        let conf = harness.directory + "/sources.conf"
        try "# no receiver on this machine\nip:?address=81.2.69.160\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let extra = [
            "CORELOCATION_SOURCES_CONF": conf, "CORELOCATION_IP_DATABASE": Self.cityDatabase,
            "CORELOCATION_NETWORK_SETTINGS": harness.directory + "/network.json",
        ]
        try await harness.start([], extra: extra)

        // Listed before anything powers it.
        let idle = try await harness.run("locationctl", ["sources"])
        #expect(idle.stdout.contains("ip:?address=81.2.69.160  ip  off"), "\(idle)\n\(harness.logText)")

        let allow = try await harness.run("locationctl", ["authorize", "locationctl", "when-in-use"])
        #expect(allow.status == 0, "\(allow)")
        // locationctl with no --source goes through the daemon; no IP variables in its own environment.
        let locate = try await harness.run("locationctl", ["locate", "--accuracy", "3km", "--format", "json"])
        #expect(locate.status == 0, "\(locate)\n\(harness.logText)")
        let line = try #require(locate.stdout.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // mmdblookup: 81.2.69.160 → 51.5142, -0.0931, accuracy_radius 100 km.
        #expect(object["latitude"] as? Double == 51.5142)
        #expect(object["longitude"] as? Double == -0.0931)
        #expect(object["horizontalAccuracy"] as? Double == 100_000)

        // A CLLocationManager app (default accuracy: best) gets the same fix: with no receiver the engine powers the
        // best source there is.
        let bundle = "org.example.network"
        await #expect(try harness.run("locationctl", ["authorize", bundle, "when-in-use"]).status == 0)
        let plist = try harness.infoPlist(bundle: bundle)
        let app = try RunningApp(harness, ["updates", "--seconds", "30"], extra: ["CORELOCATION_INFO_PLIST": plist])
        var got = false
        for _ in 0..<100 {
            got = app.lines.withLock { $0.contains { $0.hasPrefix("location ") && $0.hasSuffix("51.514200 -0.093100") } }
            if got { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(got, "\(app.lines.withLock { $0 })\n\(harness.logText)")
        let receiving = try await poll({ try await harness.run("locationctl", ["sources"]) }) {
            $0.contains("ip:?address=81.2.69.160  ip  powered") && $0.contains("receiving")
        }
        #expect(receiving.contains("ip  powered") && receiving.contains("receiving"), "\(receiving)")
        app.process.terminate()
    }

    @Test func aMissingDatabaseIsListedUnavailableWithItsReason() async throws {
        let harness = try DaemonHarness()
        let missing = harness.directory + "/not-installed.mmdb"
        try await harness.start(["--source", "ip:\(missing)?address=81.2.69.160"])
        let bundle = "org.example.nodb"
        await #expect(try harness.run("locationctl", ["authorize", bundle, "when-in-use"]).status == 0)
        let plist = try harness.infoPlist(bundle: bundle)
        let app = try RunningApp(harness, ["updates", "--seconds", "30"], extra: ["CORELOCATION_INFO_PLIST": plist])
        let listed = try await poll({ try await harness.run("locationctl", ["sources"]) }) { $0.contains("unavailable") }
        #expect(listed.contains("unavailable") && listed.contains("no such IP database"), "\(listed)\n\(harness.logText)")
        app.process.terminate()
    }
}

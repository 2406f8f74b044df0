import Foundation
import Testing

/// `--source ip:…`, `wifi:` and `modem:` on the command line (docs/decisions/0038), in-process.
@Suite struct NetworkSourceURLCommandTests {
    static let cityDatabase = NetworkCommandTests.cityDatabase

    @Test func locateWithAnIPSourceURL() async throws {
        let sandbox = try Sandbox()
        let extra = ["CORELOCATION_NETWORK_SETTINGS": sandbox.directory.appendingPathComponent("network.json").path]
        #expect(try await sandbox.locationctl("authorize", "locationctl", "when-in-use", extra: extra).status == 0)
        let run = try await sandbox.locationctl(
            "locate", "--source", "ip:\(Self.cityDatabase)?address=2.125.160.216", "--accuracy", "3km", "--format", "json",
            extra: extra)
        #expect(run.status == 0, "\(run)")
        let object = try jsonObject(try #require(run.lines.last))
        // mmdblookup: 2.125.160.216 → 51.75, -1.25, accuracy_radius 100 km.
        #expect(object["latitude"] as? Double == 51.75)
        #expect(object["longitude"] as? Double == -1.25)
        #expect(object["horizontalAccuracy"] as? Double == 100_000)
    }

    @Test func sourcesListsNetworkURLsWithTheirState() async throws {
        let sandbox = try Sandbox()
        let extra = [
            "CORELOCATION_NETWORK_SETTINGS": sandbox.directory.appendingPathComponent("network.json").path,
            "CORELOCATION_DAEMON": "off",
        ]
        let run = try await sandbox.locationctl(
            "sources", "--source", "ip:\(Self.cityDatabase)?address=81.2.69.160", "--source", "ip:/nonexistent.mmdb",
            "--source", "wifi:", extra: extra)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("ip:\(Self.cityDatabase)?address=81.2.69.160 (ip)"), "\(run)")
        #expect(run.stdout.contains("state: ready"), "\(run)")
        #expect(run.stdout.contains("fix now: 51.5142, -0.0931 ±100000 m"), "\(run)")
        #expect(run.stdout.contains("no such IP database"), "\(run)")
        #expect(run.stdout.contains("wifi: (wifi)") && run.stdout.contains("state: off (not consented)"), "\(run)")
    }

    @Test func badNetworkURLsAreRefusedBeforeAnythingRuns() async throws {
        let sandbox = try Sandbox()
        for bad in ["ip:?address=not-an-address", "wifi:?colour=red", "modem:radio"] {
            let run = try await sandbox.locationctl("locate", "--source", bad)
            #expect(run.status == 64, "\(bad): \(run)")
            #expect(run.stderr.contains(bad.split(separator: "?").first.map(String.init) ?? bad), "\(bad): \(run)")
        }
    }
}

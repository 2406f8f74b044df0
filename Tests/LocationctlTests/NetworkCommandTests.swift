import Foundation
import Testing

/// `locationctl network` (Wi-Fi consent stored) and `locate --accuracy 3km` answered by the IP source with no
/// receiver (issue 14). The IP database is MaxMind's City test database (Tests/CoreLocationNetworkTests).
@Suite struct NetworkCommandTests {
    static let cityDatabase = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CoreLocationNetworkTests/Fixtures/mmdb/GeoIP2-City-Test.mmdb").standardized.path

    @Test func wifiConsentIsStoredAndCanBeWithdrawn() async throws {
        let sandbox = try Sandbox()
        let settings = sandbox.directory.appendingPathComponent("conf/network.json").path
        let extra = ["CORELOCATION_NETWORK_SETTINGS": settings]
        let status = try await sandbox.locationctl("network", "status", extra: extra)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("wifi: off (not consented)"), "\(status)")
        let on = try await sandbox.locationctl(
            "network", "wifi", "on", "--url", "http://127.0.0.1:9/v1/geolocate", extra: extra)
        #expect(on.status == 0, "\(on)")
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: settings)))
        let object = try #require(stored as? [String: Any])
        #expect(object["wifiPositioning"] as? Bool == true)
        #expect(object["geolocateURL"] as? String == "http://127.0.0.1:9/v1/geolocate")
        let mode = try FileManager.default.attributesOfItem(atPath: settings)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let off = try await sandbox.locationctl("network", "wifi", "off", extra: extra)
        #expect(off.status == 0, "\(off)")
        #expect(try await sandbox.locationctl("network", "status", extra: extra).stdout.contains("wifi: off"))
        let bad = try await sandbox.locationctl("network", "wifi", "on", "--url", "ftp://x", extra: extra)
        #expect(bad.status != 0)
    }

    @Test func locateAtKilometreAccuracyAnswersFromIPWithoutAReceiver() async throws {
        let sandbox = try Sandbox()
        let extra = [
            "CORELOCATION_IP_DATABASE": Self.cityDatabase, "CORELOCATION_IP_ADDRESS": "81.2.69.160",
            "CORELOCATION_NETWORK_SETTINGS": sandbox.directory.appendingPathComponent("network.json").path,
        ]
        let authorize = try await sandbox.locationctl("authorize", "locationctl", "when-in-use", extra: extra)
        #expect(authorize.status == 0, "\(authorize)")
        let run = try await sandbox.locationctl("locate", "--accuracy", "3km", "--format", "json", extra: extra)
        #expect(run.status == 0, "\(run)")
        let object = try jsonObject(try #require(run.lines.last))
        // mmdblookup: 81.2.69.160 → 51.5142, -0.0931, accuracy_radius 100 km.
        #expect(object["latitude"] as? Double == 51.5142)
        #expect(object["longitude"] as? Double == -0.0931)
        #expect(object["horizontalAccuracy"] as? Double == 100_000)
    }

    /// `--source ip:` naming a database that is not there: the first thing on standard error is the path looked at
    /// and how to get a database (decision 0060), then the usual "no location" and exit 69.
    @Test func aMissingIPDatabaseSaysWhatIsMissingAndHowToGetIt() async throws {
        let sandbox = try Sandbox()
        let extra = ["CORELOCATION_NETWORK_SETTINGS": sandbox.directory.appendingPathComponent("network.json").path]
        let authorize = try await sandbox.locationctl("authorize", "locationctl", "when-in-use", extra: extra)
        #expect(authorize.status == 0, "\(authorize)")
        let missing = sandbox.directory.appendingPathComponent("not-installed.mmdb").path
        let run = try await sandbox.locationctl(
            "locate", "--source", "ip:\(missing)?address=81.2.69.160", "--accuracy", "3km", extra: extra)
        #expect(run.status == 69, "\(run)")
        let first = try #require(run.stderr.split(separator: "\n").first.map(String.init), "\(run)")
        #expect(first.hasPrefix("\(missing): no such IP database"), "\(run)")
        #expect(first.contains("scripts/fetch-ip-database.sh"), "\(run)")
        #expect(run.stderr.contains("kCLErrorLocationUnknown"), "\(run)")
    }
}

import Foundation
import Testing

/// The built `locationctl` against python-dbusmock's ModemManager (`ModemBus`, `CORELOCATION_MODEM_BUS`):
/// `sources` lists the mock's modems, and `track --source modem:gnss` prints the fixes of a recorded NMEA log fed
/// through the mock, equal to the same log through `--source nmea:FILE` (docs/decisions/0035).
@Suite(.serialized, .enabled(if: ModemBus.isAvailable,
    "needs Debian package dbus and PyPI python-dbusmock 0.38 (.ci/run puts it in .build/dbusmock-0.38)"))
struct ModemCommandTests {
    static let log = ModemBus.fixtures.appendingPathComponent("globalsat-bu353s4.nmea").path

    @Test func sourcesListsTheModemsWithStateCapabilitiesAndServingCell() async throws {
        let modems = try ModemBus()
        defer { modems.stop() }
        try await modems.start()
        let path = try await modems.drive("add")
        try await modems.drive("cell", path, "262,01,0,1A60103,2B67")
        let sandbox = try Sandbox()
        let extra = ["CORELOCATION_MODEM_BUS": modems.bus.address]

        let json = try await sandbox.locationctl("sources", "--format", "json", extra: extra)
        #expect(json.status == 0, "\(json)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let rows = try #require(document?["modems"] as? [[String: Any]], "\(json)")
        let row = try #require(rows.first { $0["modem"] as? String == path }, "\(json)")
        #expect(row["model"] as? String == "E1750")
        #expect(row["state"] as? String == "enabled")
        #expect(row["capabilities"] as? String == "3gpp-lac-ci,gps-raw,gps-nmea")
        #expect(row["enabled"] as? String == "none")  // listing sets nothing up
        // The template's modem is on LTE: the TAC is the area.
        #expect((row["servingCell"] as? String)?.hasSuffix("262-01 area 2B67 cell 1A60103") == true, "\(row)")
        #expect(row["problem"] == nil)

        let text = try await sandbox.locationctl("sources", extra: extra)
        #expect(text.status == 0, "\(text)")
        #expect(
            text.lines.contains {
                $0.hasPrefix("modem E1750: enabled, location 3gpp-lac-ci,gps-raw,gps-nmea (enabled: none), serving cell ")
            }, "\(text)")

        // The SIM locked (the template has one modem): listed with its state and why location cannot work.
        try await modems.drive("state", path, "2")
        let locked = try await sandbox.locationctl("sources", "--format", "json", extra: extra)
        let lockedDocument = try JSONSerialization.jsonObject(with: Data(locked.stdout.utf8)) as? [String: Any]
        let lockedRow = try #require((lockedDocument?["modems"] as? [[String: Any]])?.first, "\(locked)")
        #expect(lockedRow["state"] as? String == "locked")
        #expect(lockedRow["problem"] as? String == "location needs the modem enabled (locked)")
    }

    @Test func trackThroughTheModemEqualsTheSameLogThroughNMEA() async throws {
        let modems = try ModemBus()
        defer { modems.stop() }
        try await modems.start()
        let path = try await modems.drive("add")
        let sandbox = try Sandbox()
        let extra = ["CORELOCATION_MODEM_BUS": modems.bus.address, "CORELOCATION_DEFAULT_POLICY": "when-in-use"]

        let environment = sandbox.environment.merging(extra) { _, new in new }
        let directory = sandbox.directory
        async let tracked = Tool.locationctl.run(
            ["track", "--source", "modem:gnss", "--format", "json", "--limit", "3", "--status"],
            environment: environment, in: directory)
        // locationctl's GNSS demand sets the modem up for GPS_NMEA (4); then the log goes in, one update an epoch.
        #expect(try await modems.waitUntilEnabled(path, 4) == 4)
        try await modems.drive("nmea", path, Self.log)
        let modem = try await tracked
        #expect(modem.status == 0, "\(modem)")

        let replay = try await sandbox.locationctl(
            "track", "--source", "nmea:\(Self.log)", "--speed", "max", "--format", "json", "--limit", "3",
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        #expect(replay.status == 0, "\(replay)")

        let live = try Self.fixes(modem.stdout)
        let recorded = try Self.fixes(replay.stdout)
        #expect(live.count == 3, "\(modem)")
        #expect(recorded.count == 3, "\(replay)")
        for (one, other) in zip(live, recorded) {
            // Every field equal, but two that say how the fix was read: a replay is simulated, and a live source
            // reads the 2014 date as a receiver with the GPS week bug (1024 weeks added up to 2025, 0005).
            #expect(one.fields == other.fields)
            #expect(one.simulated == false && other.simulated == true)
            #expect(one.timestamp.timeIntervalSince(other.timestamp) == 1024 * 7 * 86_400)
        }
        #expect((recorded.first?.fields["latitude"] ?? 0) < -37.78)  // Hamilton, New Zealand
        #expect(recorded.first?.timestamp == Date(timeIntervalSince1970: 1_419_995_239))  // 2014-12-31T03:07:19Z
        // Which modem produced them: --status names it by model and D-Bus path.
        #expect(modem.stderr.contains("from E1750 (\(path))"), "\(modem)")
    }

    /// `status --format json` names the modem of the last fix, as the text status does (`from …`).
    @Test func statusJSONNamesTheModemOfTheLastFix() async throws {
        let modems = try ModemBus()
        defer { modems.stop() }
        try await modems.start()
        let path = try await modems.drive("add")
        let sandbox = try Sandbox()
        // Authorized: without it the probe keeps positions private, the origin (a serving cell names a place) too.
        #expect(try await sandbox.locationctl("authorize", "locationctl", "when-in-use").status == 0)
        let extra = ["CORELOCATION_MODEM_BUS": modems.bus.address]
        let environment = sandbox.environment.merging(extra) { _, new in new }
        let directory = sandbox.directory
        // The probe powers the modem's GNSS for 10 s; the log goes in as soon as Setup asked for GPS_NMEA (4).
        async let probed = Tool.locationctl.run(
            ["status", "--source", "modem:gnss", "--format", "json", "--probe", "10"],
            environment: environment, in: directory)
        #expect(try await modems.waitUntilEnabled(path, 4) == 4)
        try await modems.drive("nmea", path, Self.log)
        let status = try await probed
        #expect(status.status == 0, "\(status)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let source = try #require((document["sources"] as? [[String: Any]])?.first, "\(status)")
        #expect((source["fixCount"] as? Int ?? 0) > 0, "\(status)")
        #expect(source["origin"] as? String == "E1750 (\(path))", "\(status.stdout)")
    }

    struct PrintedFix {
        var fields: [String: Double]
        var simulated: Bool
        var timestamp: Date
    }

    /// `track --format json` lines: the numbers, `simulated` and the timestamp apart.
    static func fixes(_ output: String) throws -> [PrintedFix] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try output.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let text = try #require(object["timestamp"] as? String)
            let timestamp = try #require(formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text))
            var fields: [String: Double] = [:]
            for (key, value) in object where key != "simulated" && key != "timestamp" {
                if let number = value as? Double { fields[key] = number }
            }
            return PrintedFix(fields: fields, simulated: object["simulated"] as? Bool ?? false, timestamp: timestamp)
        }
    }
}

import CoreLocationCellular
import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Testing

/// The ModemManager source against python-dbusmock's `modemmanager` template with the Location interface added by
/// Fixtures/modemmanager/driver.py: Setup recorded by the mock (its GetCalls), NMEA from a recorded log, 3GPP
/// strings, refusal, locked and disabled modems, removal and ModemManager restarting.
@Suite(.serialized, .enabled(if: ModemManagerMock.isAvailable,
    "needs Debian package dbus and PyPI python-dbusmock 0.38 (.ci/run puts it in .build/dbusmock-0.38)"))
struct ModemManagerTests {
    let bus: PrivateBus
    let mock: ModemManagerMock
    let client: DBusClient
    let scheduler = ManualScheduler()
    let session: ModemManagerSession

    init() async throws {
        bus = try PrivateBus()
        mock = ModemManagerMock(bus: bus)
        try await mock.start()
        client = try bus.client()
        session = ModemManagerSession(client: client, scheduler: scheduler)
    }

    /// The mock's record of Setup calls on `modem`: (sources, signal_location).
    func setupCalls(_ modem: String) async throws -> [[Int64]] {
        let reply = try await client.call(
            destination: ModemManagerSession.service, path: modem, interface: "org.freedesktop.DBus.Mock",
            member: "GetCalls")
        return (reply.first?.elements ?? []).compactMap { call -> [Int64]? in
            guard case .structure(let fields) = call, fields.count == 3, fields[1].string == "Setup" else { return nil }
            return (fields[2].elements ?? []).map { $0.integer ?? ($0.bool == true ? 1 : 0) }
        }
    }

    func modem(_ path: String) async -> ModemStatus? { await session.status.first { $0.path == path } }

    @Test func gnssFixesEqualTheSameLogDecodedThroughNMEA() async throws {
        let path = try await mock.drive("add")
        try await session.start()
        try await eventually("the modem's Location interface") { await modem(path)?.capabilities != nil }
        let status = try #require(await modem(path))
        #expect(status.model == "E1750")
        #expect(status.state == .enabled)
        #expect(status.capabilities == [.threeGPPCell, .gpsRaw, .gpsNMEA])

        let events = Recorder<SourceEvent>()
        let source = ModemGNSSSource(session: session, scheduler: scheduler, referenceDate: nil)
        source.start { events.append($0) }
        // GNSS demand: Setup with GPS_NMEA only (not the cell, not GPS_RAW), signals on.
        try await eventually("Setup") { try await setupCalls(path).count == 1 }
        #expect(try await setupCalls(path) == [[4, 1]])

        let log = ModemManagerMock.fixtures.appendingPathComponent("globalsat-bu353s4.nmea")
        try await mock.drive("nmea", path, log.path)
        // The oracle: the same log through the NMEA decoder as `nmea:` reads it (the lines, CRLF, one stream).
        var decoder = NMEAStreamDecoder(referenceDate: nil)
        var expected: [Fix] = []
        let text = try String(contentsOf: log, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0 + "\r\n" }
        decoder.feed(Array(lines.joined().utf8), receivedAt: scheduler.wallNow) { event, _ in
            if case .fix(let fix) = event { expected.append(fix) }
        }
        #expect(expected.count >= 3)
        try await eventually("\(expected.count) fixes") { source.fixCount >= expected.count }
        let fixes = events.values.compactMap { event -> Fix? in if case .fix(let fix) = event { fix } else { nil } }
        #expect(fixes == expected)
        #expect(fixes.first?.latitude ?? 0 < -37.78)  // Hamilton, New Zealand
        // Which modem produced the fixes: its model and D-Bus path.
        #expect(source.lastFixOrigin == "E1750 (\(path))")

        // Garbage from the modem (bad checksums, truncated sentences, noise): no fix, no crash, still listening.
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let garbage = scratch.appendingPathComponent("garbage.nmea")
        try """
            $GPGGA,030723.000,3747.0877,S,17518.8933,E,1,08,1.1,60.1,M,23.7,M,,0000*00
            $GPRMC,030723.000,A,3747.08
            GPGGA,,,,,
            $\u{7F}\u{01}xx*ZZ
            """.write(to: garbage, atomically: true, encoding: .utf8)
        try await mock.drive("nmea", path, garbage.path)
        try await mock.drive("cell", path, "262,01,0,1A60103,2B67")  // a later update: the garbage was handled before it
        try await eventually("the modem's serving cell") { await modem(path)?.servingCell != nil }
        #expect(source.fixCount == expected.count)

        // The last client leaves: the earlier setup (nothing enabled, no signals) comes back.
        source.stop()
        try await eventually("the restoring Setup") { try await setupCalls(path).count == 2 }
        #expect(try await setupCalls(path) == [[4, 1], [0, 0]])
        await session.close()
    }

    @Test func aModemWithOnlyGPSRawGivesOneFixPerNewTime() async throws {
        // Capabilities 3GPP_LAC_CI | GPS_RAW: no NMEA.
        let path = try await mock.drive("add", "--capabilities", "3")
        try await session.start()
        try await eventually("the modem") { await modem(path)?.capabilities == [.threeGPPCell, .gpsRaw] }
        let events = Recorder<SourceEvent>()
        let source = ModemGNSSSource(session: session, scheduler: scheduler, referenceDate: nil)
        source.start { events.append($0) }
        try await eventually("Setup") { try await setupCalls(path).count == 1 }
        #expect(try await setupCalls(path) == [[2, 1]])  // GPS_RAW only

        // The BU-353-S4 log's first GGA (030719.000, 3747.0873 S, 17518.8938 E, 59.9 m) as ModemManager gives it.
        let first = #"{"utc-time": "030719.000", "latitude": -37.784788333, "longitude": 175.314896667, "#
            + #""altitude": 59.9}"#
        try await mock.drive("raw", path, first)
        _ = try await events.wait(for: 1)
        guard case .fix(let fix) = events.values[0] else {
            Issue.record("expected a fix, got \(events.values[0])")
            return
        }
        #expect(fix.latitude == -37.784788333)
        #expect(fix.longitude == 175.314896667)
        #expect(fix.altitude == 59.9)
        #expect(fix.horizontalAccuracy == ModemGPSRaw.horizontalAccuracy)
        // 03:07:19 UTC on the injected wall clock's nearest day.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let midnight = calendar.startOfDay(for: scheduler.wallNow)
        let candidates = [-86_400.0, 0, 86_400].map { midnight.addingTimeInterval($0 + 3 * 3_600 + 7 * 60 + 19) }
        let now = scheduler.wallNow
        let nearest = candidates.min { abs($0.timeIntervalSince(now)) < abs($1.timeIntervalSince(now)) }
        #expect(fix.timestamp == nearest)

        // The same dictionary again (the cell changed, say): nothing new. Bad ones: counted, no fix, no crash.
        try await mock.drive("raw", path, first)
        try await mock.drive("raw", path, #"{"utc-time": "030720.000", "latitude": 91.0, "longitude": 175.3}"#)
        try await mock.drive("raw", path, #"{"utc-time": "030720.000", "latitude": -37.78, "longitude": 175}"#)
        try await mock.drive("raw", path, #"{"utc-time": "030720.000", "latitude": "nan", "longitude": 175.3}"#)
        try await mock.drive("raw", path, #""not a dictionary""#)
        try await mock.drive("raw", path, #"{"latitude": -37.78, "longitude": 175.3}"#)
        do {
            try await eventually("five rejections") { source.rawRejectedCount == 5 }
        } catch {
            Issue.record("rejected \(source.rawRejectedCount), last: \(source.lastRawProblem ?? "-")")
            throw error
        }
        #expect(source.lastRawProblem == "GPS_RAW: no utc-time string")
        // A new time: the second fix.
        try await mock.drive("raw", path, #"{"utc-time": "030720.000", "latitude": -37.7847916, "longitude": 175.3148966}"#)
        _ = try await events.wait(for: 2)
        #expect(source.fixCount == 2)
        let fixes = events.values.compactMap { event -> Fix? in if case .fix(let fix) = event { fix } else { nil } }
        #expect(fixes.map(\.latitude) == [-37.784788333, -37.7847916])
        #expect(fixes.last?.verticalAccuracy == -1)  // no altitude in it
        #expect(source.lastFixOrigin == "E1750 (\(path))")
        source.stop()
        try await eventually("the restoring Setup") { try await setupCalls(path).count == 2 }
        await session.close()
    }

    @Test func cellsResolveFromTheTableAndANewCellGivesANewFix() async throws {
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tablePath = scratch.appendingPathComponent("cells.sqlite").path
        _ = try CellTableImporter.importCSV(from: CellFixtures.csv, into: tablePath)
        let path = try await mock.drive("add")
        try await session.start()
        try await eventually("the modem") { await modem(path)?.capabilities != nil }

        let events = Recorder<SourceEvent>()
        let source = ModemCellSource(
            session: session, resolver: CellResolver(table: try CellTable(path: tablePath), geolocator: nil),
            scheduler: scheduler)
        source.start { events.append($0) }
        try await eventually("Setup") { try await setupCalls(path).count == 1 }
        #expect(try await setupCalls(path) == [[1, 1]])  // 3GPP_LAC_CI only: GNSS stays off

        // The template's modem is on LTE (AccessTechnologies 1<<14): the TAC is the area.
        try await mock.drive("cell", path, "262,01,0,1A60103,2B67")
        _ = try await events.wait(for: 1)
        let served = CellIdentity(radio: .lte, mcc: 262, mnc: 1, lac: 0, cellID: 0x1A60103, tac: 0x2B67)
        #expect(source.lastFixOrigin == "E1750 (\(path)), cell \(served)")
        #expect(events.values.first == .fix(Fix(latitude: 52.5170, longitude: 13.3889, horizontalAccuracy: 1_000,
            timestamp: scheduler.wallNow)))
        #expect(await modem(path)?.servingCell == CellIdentity(radio: .lte, mcc: 262, mnc: 1, lac: 0, cellID: 0x1A60103,
            tac: 0x2B67))
        // The same cell again: nothing new. A new serving cell: a new fix.
        try await mock.drive("cell", path, "262,01,0,1A60103,2B67")
        try await mock.drive("cell", path, "262,01,0,1A60104,2B68")
        _ = try await events.wait(for: 2)
        #expect(events.values[1] == .fix(Fix(latitude: 52.51, longitude: 13.39, horizontalAccuracy: 1_000,
            timestamp: scheduler.wallNow)))
        // A cell no table knows: no fix, and the status says so.
        try await mock.drive("cell", path, "262,01,0,1A60105,2B68")
        _ = try await events.wait(for: 3)
        guard case .unavailable(let reason) = events.values[2] else {
            Issue.record("expected unavailable, got \(events.values[2])")
            return
        }
        #expect(reason.contains("unknown"))
        #expect(source.lastProblem?.contains("not in the cell table") == true)
        // Garbage from the modem: a clear reason, no crash.
        try await mock.drive("cell", path, "262,01,FFFE,1,0")
        _ = try await events.wait(for: 4)
        #expect(events.values[3] == .unavailable(reason: "3GPP location '262,01,FFFE,1,0': LAC FFFE is reserved (no valid location area)"))
        source.stop()
        try await eventually("the restoring Setup") { try await setupCalls(path).count == 2 }
        await session.close()
    }

    @Test func withoutSignalsTheLocationIsPolled() async throws {
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tablePath = scratch.appendingPathComponent("cells.sqlite").path
        _ = try CellTableImporter.importCSV(from: CellFixtures.csv, into: tablePath)
        let path = try await mock.drive("add", "--quiet")
        try await session.start()
        try await eventually("the modem") { await modem(path)?.capabilities != nil }
        let events = Recorder<SourceEvent>()
        let source = ModemCellSource(
            session: session, resolver: CellResolver(table: try CellTable(path: tablePath), geolocator: nil),
            scheduler: scheduler)
        source.start { events.append($0) }
        try await eventually("Setup") { await modem(path)?.enabled == .threeGPPCell }
        #expect(await modem(path)?.signalsLocation == false)
        try await mock.drive("cell", path, "262,01,0,1A60103,2B67")
        // Nothing is signalled; the next poll (the injected clock, 1 s) reads it with GetLocation.
        #expect(events.values.isEmpty)
        scheduler.advance(by: 1)
        _ = try await events.wait(for: 1)
        guard case .fix(let fix) = events.values[0] else {
            Issue.record("expected a fix, got \(events.values[0])")
            return
        }
        #expect(fix.latitude == 52.5170)
        source.stop()
        await session.close()
    }

    @Test func refusedLockedRemovedAndRestarting() async throws {
        // Setup refused (polkit): a clear state, no retry loop.
        let path = try await mock.drive("add", "--refuse")
        try await session.start()
        try await eventually("the modem") { await modem(path)?.capabilities != nil }
        let events = Recorder<SourceEvent>()
        let source = ModemCellSource(
            session: session, resolver: CellResolver(table: nil, geolocator: nil), scheduler: scheduler)
        source.start { events.append($0) }
        try await eventually("the refusal") { await modem(path)?.problem != nil }
        #expect(await modem(path)?.problem?.contains("not authorized") == true)
        let reason = try await events.wait(for: 1).first
        #expect(reason == .unavailable(reason: "E1750: location setup refused: not authorized (polkit: install packaging/polkit/50-corelocation-modemmanager.rules)"))
        scheduler.advance(by: 10)
        #expect(try await setupCalls(path).count == 1)

        // ModemManager restarts (a new unique name, no modems); a locked modem appears: listed, never set up.
        try await mock.start()
        try await eventually("no modem after the restart") { await session.status.isEmpty }
        let locked = try await mock.drive("add", "--state", "2")
        try await eventually("the locked modem") { await modem(locked)?.state == .locked }
        #expect(await modem(locked)?.problem == "modem locked (SIM locked)")
        #expect(try await setupCalls(locked).isEmpty)
        // Unlocked (enabled): now it is set up for the waiting client.
        try await mock.drive("state", locked, "6")
        try await eventually("Setup after unlocking") { try await setupCalls(locked).count == 1 }
        // Removed in the middle: gone from the list, the source says so.
        try await mock.drive("remove", locked)
        try await eventually("the removal") { await session.status.isEmpty }
        try await eventually("no modem") {
            events.values.contains(.unavailable(reason: "no modem (ModemManager has none, or is not running)"))
        }

        // A modem without the Location interface: listed, capabilities nil.
        try await mock.start()
        let plain = try await mock.drive("add", "--no-location")
        try await eventually("the plain modem") { await modem(plain) != nil }
        #expect(await modem(plain)?.capabilities == nil)
        source.stop()
        await session.close()
    }
}

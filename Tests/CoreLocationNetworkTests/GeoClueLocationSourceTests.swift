import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Testing

/// The GeoClue source against a GeoClue 2 mock (Fixtures/geoclue/geoclue2.py: python-dbusmock with GeoClue's real
/// names) on a private bus: the client it makes, the fixes it reads, GeoClue absent, stopping and coming back.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
struct GeoClueLocationSourceTests {
    static let template = Fixtures.directory.appendingPathComponent("geoclue/geoclue2.py").path

    struct MockClient: Equatable {
        var path: String
        var desktopId: String
        var level: Int64
        var active: Bool
    }

    func clients(_ client: DBusClient) async throws -> [MockClient] {
        let reply = try await client.call(
            destination: GeoClue.service, path: GeoClue.managerPath, interface: "org.freedesktop.DBus.Mock",
            member: "Clients")
        return (reply.first?.elements ?? []).compactMap { entry in
            guard case .structure(let fields) = entry.unwrapped, fields.count == 4, let path = fields[0].string,
                let id = fields[1].string, let level = fields[2].integer, let active = fields[3].bool
            else { return nil }
            return MockClient(path: path, desktopId: id, level: level, active: active)
        }
    }

    @discardableResult
    func setLocation(
        _ client: DBusClient, _ latitude: Double, _ longitude: Double, accuracy: Double, altitude: Double,
        speed: Double, heading: Double, seconds: UInt64, microseconds: UInt64
    ) async throws -> String {
        try await client.call(
            destination: GeoClue.service, path: GeoClue.managerPath, interface: "org.freedesktop.DBus.Mock",
            member: "SetLocation",
            arguments: [
                .double(latitude), .double(longitude), .double(accuracy), .double(altitude), .double(speed),
                .double(heading), .uint64(seconds), .uint64(microseconds),
            ]
        ).first?.string ?? ""
    }

    /// Bounded at 120 s: a passing test returns at once, and in a full run CPU-bound tests can hold the pool's
    /// threads (which the source's own tasks need) for a minute or more.
    func eventually(_ timeout: Double = 120, _ predicate: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await predicate() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await predicate()
    }

    func fixes(_ events: Recorder<SourceEvent>) -> [Fix] {
        events.values.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
    }

    @Test func startsAClientAsConfiguredAndReadsEveryFieldExactly() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: GeoClue.service, arguments: ["--template", Self.template])
        let control = try bus.client()
        let source = GeoClueLocationSource(
            configuration: .init(desktopId: "org.example.Maps", accuracyLevel: .city), bus: .address(bus.address),
            scheduler: ManualScheduler())
        #expect(source.descriptor.kind == "geoclue" && source.descriptor.expectedAccuracy == 15_000)
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        #expect(try await eventually { try await clients(control).first?.active == true })
        let made = try await clients(control)
        #expect(made.map(\.desktopId) == ["org.example.Maps"] && made.map(\.level) == [4], "\(made)")

        try await setLocation(
            control, 47.3769, 8.5417, accuracy: 25, altitude: 408.5, speed: 1.5, heading: 270, seconds: 1_700_000_000,
            microseconds: 250_000)
        #expect(try await eventually { fixes(events).count == 1 }, "\(events.values)")
        let fix = try #require(fixes(events).first)
        #expect(fix.latitude == 47.3769 && fix.longitude == 8.5417)
        #expect(fix.horizontalAccuracy == 25)
        #expect(fix.altitude == 408.5 && fix.verticalAccuracy == 25)
        #expect(fix.speed == 1.5 && fix.course == 270)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_700_000_000.25))

        // GeoClue's unknowns: altitude -DBL_MAX, speed and heading -1.
        try await setLocation(
            control, -33.8688, 151.2093, accuracy: 15_000, altitude: -Double.greatestFiniteMagnitude, speed: -1,
            heading: -1, seconds: 1_700_000_060, microseconds: 0)
        #expect(try await eventually { fixes(events).count == 2 })
        let second = try #require(fixes(events).last)
        #expect(second.latitude == -33.8688 && second.longitude == 151.2093 && second.horizontalAccuracy == 15_000)
        #expect(second.verticalAccuracy == -1 && second.speed == -1 && second.course == -1)
        #expect(second.timestamp == Date(timeIntervalSince1970: 1_700_000_060))

        // Stopped: the client is stopped and deleted.
        source.stop()
        let gone = try await eventually { try await clients(control).isEmpty }
        let left = try await clients(control)
        #expect(gone, "\(left)")
    }

    @Test func aClientStartedAfterGeoClueKnowsWhereItIsGetsThatAtOnce() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: GeoClue.service, arguments: ["--template", Self.template])
        let control = try bus.client()
        try await setLocation(
            control, 51.5, -0.12, accuracy: 100, altitude: 11, speed: 0, heading: 0, seconds: 1_700_000_000,
            microseconds: 0)
        let source = GeoClueLocationSource(bus: .address(bus.address), scheduler: ManualScheduler())
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        defer { source.stop() }
        #expect(try await eventually { !fixes(events).isEmpty }, "\(events.values)")
        #expect(fixes(events).first.map { [$0.latitude, $0.longitude, $0.horizontalAccuracy] } == [51.5, -0.12, 100])
    }

    @Test func geoClueAbsentIsUnavailableWithTheReason() async throws {
        let bus = try PrivateBus()
        let source = GeoClueLocationSource(bus: .address(bus.address), scheduler: ManualScheduler())
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        defer { source.stop() }
        #expect(try await eventually { !events.values.isEmpty })
        guard case .unavailable(let reason)? = events.values.first else {
            Issue.record("\(events.values)")
            return
        }
        #expect(reason.contains("GeoClue is not running"), "\(reason)")
    }

    @Test func geoClueStoppingAndComingBackIsFollowed() async throws {
        let bus = try PrivateBus()
        let first = try await bus.startMock(name: GeoClue.service, arguments: ["--template", Self.template])
        let control = try bus.client()
        let source = GeoClueLocationSource(bus: .address(bus.address), scheduler: ManualScheduler())
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        defer { source.stop() }
        #expect(try await eventually { try await clients(control).first?.active == true })

        bus.stopMock(first)
        #expect(try await eventually {
            events.values.contains { if case .unavailable(let reason) = $0 { reason.contains("stopped") } else { false } }
        }, "\(events.values)")

        // A new GeoClue (a new unique name): the source makes its client again, unasked.
        try await bus.startMock(name: GeoClue.service, arguments: ["--template", Self.template])
        #expect(try await eventually { try await clients(control).first?.active == true }, "\(events.values)")
        try await setLocation(
            control, 48.8584, 2.2945, accuracy: 50, altitude: 35, speed: 0, heading: 0, seconds: 1_700_000_100,
            microseconds: 0)
        #expect(try await eventually { fixes(events).contains { $0.latitude == 48.8584 && $0.longitude == 2.2945 } },
            "\(events.values)")
    }

    @Test func locationPropertiesToFix() {
        let now = Date(timeIntervalSince1970: 1_000)
        // Out of range or missing coordinates, a negative accuracy: no fix.
        #expect(GeoClue.fix(["Latitude": .double(91), "Longitude": .double(0), "Accuracy": .double(1)], now: now) == nil)
        #expect(GeoClue.fix(["Latitude": .double(1), "Accuracy": .double(1)], now: now) == nil)
        #expect(GeoClue.fix(["Latitude": .double(1), "Longitude": .double(2), "Accuracy": .double(-1)], now: now) == nil)
        // No timestamp: now.
        let fix = GeoClue.fix(["Latitude": .double(1), "Longitude": .double(2), "Accuracy": .double(3)], now: now)
        #expect(fix?.timestamp == now && fix?.verticalAccuracy == -1 && fix?.speed == -1)
    }
}

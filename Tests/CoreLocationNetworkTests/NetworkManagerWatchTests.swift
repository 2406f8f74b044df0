import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Testing

/// Access points NetworkManager finds while the Wi-Fi source runs: python-dbusmock's networkmanager template on a
/// private bus emits AccessPointAdded/AccessPointRemoved; the source sends the changed scan once the burst settles
/// (0.5 s of the manual clock; its interval is an hour, so only a signal can cause a request) to the geolocate
/// stand-in, which records every request.
@Suite(.enabled(if: PrivateBus.isAvailable && GeolocateStandIn.isAvailable,
    "needs Debian packages dbus, python3-dbusmock and python3"))
struct NetworkManagerWatchTests {
    static let manager = "/org/freedesktop/NetworkManager"
    static let mock = "org.freedesktop.DBus.Mock"

    func addAccessPoint(_ client: DBusClient, device: String, name: String, bssid: String, strength: UInt8) async throws
        -> String
    {
        let reply = try await client.call(
            destination: NetworkManagerScanner.service, path: Self.manager, interface: Self.mock,
            member: "AddAccessPoint",
            arguments: [
                .string(device), .string(name), .string("cafe"), .string(bssid), .uint32(2), .uint32(2437),
                .uint32(54000), .byte(strength), .uint32(0),
            ])
        return reply.first?.string ?? ""
    }

    /// Waits (bounded, without blocking a thread) until `predicate` holds, moving `scheduler` 0.25 s per step (a
    /// signal arrives on the bus thread whenever it arrives; its settle timer then falls due on the manual clock).
    func eventually(
        _ scheduler: ManualScheduler? = nil, _ timeout: Double = 15, _ predicate: () throws -> Bool
    ) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try predicate() { return true }
            scheduler?.advance(by: 0.25)
            try await Task.sleep(for: .milliseconds(50))
        }
        return try predicate()
    }

    @Test func accessPointsAddedAndRemovedWhileRunningReachTheNextRequest() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: NetworkManagerScanner.service, arguments: ["--template", "networkmanager"])
        let client = try bus.client()
        let device = try #require(
            try await client.call(
                destination: NetworkManagerScanner.service, path: Self.manager, interface: Self.mock,
                member: "AddWiFiDevice", arguments: [.string("wlan0"), .string("wlan0"), .uint32(100)]
            ).first?.string)
        _ = try await addAccessPoint(client, device: device, name: "a", bssid: "02:00:00:00:00:01", strength: 80)
        _ = try await addAccessPoint(client, device: device, name: "b", bssid: "02:00:00:00:00:02", strength: 70)

        let standIn = try await GeolocateStandIn()
        let scratch = try Fixtures.scratch()
        let settings = NetworkSettingsStore(path: scratch.path("network.json"))
        try settings.save(NetworkSettings(wifiPositioning: true, geolocateURL: standIn.url.absoluteString))
        let scheduler = ManualScheduler()
        var configuration = WiFiGeolocator.Configuration()
        // Every changed scan is asked about: no rate limit, no cache across the manual clock's steps.
        configuration.minimumInterval = 0
        configuration.cacheLifetime = 0
        let geolocator = WiFiGeolocator(
            configuration: configuration, settings: settings, transport: AsyncHTTPGeolocateTransport(),
            scheduler: scheduler)
        let source = WiFiLocationSource(
            scanner: SystemNetworkManagerScanner(bus: .address(bus.address)), geolocator: geolocator,
            scheduler: scheduler, interval: 3600)
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        defer { source.stop() }

        func sent() throws -> [[String]] {
            try standIn.requests().map { ($0.body?.wifiAccessPoints ?? []).map(\.macAddress).sorted() }
        }
        func log() -> String { (try? sent()).map { "\($0)" } ?? "no log" }
        #expect(try await eventually { try sent().count == 1 && events.values.count == 1 }, "\(log())")
        #expect(try sent().first == ["02:00:00:00:00:01", "02:00:00:00:00:02"])

        // NetworkManager finds a third access point: the next request carries it, long before the interval.
        scheduler.advance(by: 1)
        let third = try await addAccessPoint(client, device: device, name: "c", bssid: "02:00:00:00:00:03", strength: 90)
        #expect(try await eventually(scheduler) { try sent().count >= 2 }, "\(log())\n\(events.values)")
        #expect(scheduler.now < 600)
        #expect(try sent().last == ["02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:03"])
        #expect(try await eventually { events.values.count >= 2 })
        // The stand-in's signal-weighted centroid of the three (map.json): a different answer from the first.
        guard case .fix(let first)? = events.values.first, case .fix(let second)? = events.values.last else {
            Issue.record("\(events.values)")
            return
        }
        #expect(first.latitude != second.latitude)

        // It goes again: the next request no longer carries it.
        scheduler.advance(by: 1)
        _ = try await client.call(
            destination: NetworkManagerScanner.service, path: Self.manager, interface: Self.mock,
            member: "RemoveAccessPoint", arguments: [.objectPath(device), .objectPath(third)])
        #expect(
            try await eventually(scheduler) { try sent().last == ["02:00:00:00:00:01", "02:00:00:00:00:02"] },
            "\(log())")
        // Stopped: a change sends nothing more.
        source.stop()
        let count = try sent().count
        scheduler.advance(by: 1)
        _ = try await addAccessPoint(client, device: device, name: "d", bssid: "02:00:00:00:00:04", strength: 90)
        for _ in 0..<10 {
            scheduler.advance(by: 0.25)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try sent().count == count)
    }
}

import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationNetwork
import Foundation
import Testing

/// NetworkManager's access points over D-Bus: python-dbusmock's networkmanager template on a private bus.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
struct NetworkManagerScannerTests {
    static let manager = "/org/freedesktop/NetworkManager"

    func addAccessPoint(
        _ client: DBusClient, device: String, name: String, ssid: String, bssid: String, strength: UInt8
    ) async throws {
        _ = try await client.call(
            destination: NetworkManagerScanner.service, path: Self.manager, interface: "org.freedesktop.DBus.Mock",
            member: "AddAccessPoint",
            arguments: [
                .string(device), .string(name), .string(ssid), .string(bssid), .uint32(2), .uint32(2437),
                .uint32(54000), .byte(strength), .uint32(0),
            ])
    }

    @Test func readsAccessPointsWithDBmFromStrength() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: NetworkManagerScanner.service, arguments: ["--template", "networkmanager"])
        let client = try bus.client()
        let scanner = NetworkManagerScanner(client: client)
        #expect(try await scanner.scan().isEmpty)
        let reply = try await client.call(
            destination: NetworkManagerScanner.service, path: Self.manager, interface: "org.freedesktop.DBus.Mock",
            member: "AddWiFiDevice", arguments: [.string("wlan0"), .string("wlan0"), .uint32(100)])
        let device = try #require(reply.first?.string)
        try await addAccessPoint(client, device: device, name: "a", ssid: "cafe", bssid: "02:00:00:00:00:01", strength: 100)
        try await addAccessPoint(client, device: device, name: "b", ssid: "cafe", bssid: "02:00:00:00:00:02", strength: 50)
        try await addAccessPoint(client, device: device, name: "c", ssid: "", bssid: "02:00:00:00:00:03", strength: 90)
        try await addAccessPoint(client, device: device, name: "d", ssid: "Home_nomap", bssid: "02:00:00:00:00:04", strength: 0)
        let scan = try await scanner.scan().sorted { $0.bssid < $1.bssid }
        #expect(scan.map(\.bssid) == ["02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:03", "02:00:00:00:00:04"])
        // NetworkManager's percent is linear from -100 dBm (0 %) to -40 dBm (100 %).
        #expect(scan.map(\.signalDBm) == [-40, -70, -46, -100])
        #expect(scan.map(\.frequency) == [2437, 2437, 2437, 2437])
        #expect(scan[0].ssid == Array("cafe".utf8))
        // Hidden and _nomap networks never reach a request.
        #expect(WiFiAccessPointFilter.usable(scan).map(\.bssid) == ["02:00:00:00:00:01", "02:00:00:00:00:02"])
    }

    @Test func noNetworkManagerIsABusError() async throws {
        let bus = try PrivateBus()
        let scanner = NetworkManagerScanner(client: try bus.client())
        do {
            _ = try await scanner.scan()
            Issue.record("a scan without NetworkManager")
        } catch let error as NetworkSourceError {
            #expect(error.code == .busFailed)
        }
    }

    @Test func strengthToDBm() {
        #expect(WiFiAccessPoint.dBm(fromStrength: 100) == -40)
        #expect(WiFiAccessPoint.dBm(fromStrength: 0) == -100)
        #expect(WiFiAccessPoint.dBm(fromStrength: 70) == -58)
        #expect(WiFiAccessPoint.dBm(fromStrength: 255) == -40)
    }
}

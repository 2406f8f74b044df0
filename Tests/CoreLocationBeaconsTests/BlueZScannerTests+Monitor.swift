import CoreLocationBeacons
import CoreLocationDBus
import CoreLocationDBusTestSupport
import Foundation
import Testing

/// Passive scanning: an adapter whose mock offers org.bluez.AdvertisementMonitorManager1 (bluez_driver.py's
/// `monitor-adapter`), the scanner's monitor read back through its own exported ObjectManager.
extension BlueZScannerTests {
    /// iBeacon at 0 of 0xFF, AltBeacon's code at 2 of 0xFF, Eddystone-UID at 0 of 0x16.
    static let beaconPatterns = "patterns 0:ff:4c000215;2:ff:beac;0:16:aafe00 sampling 0"

    /// Waits (bounded) until the driver's `monitors` line contains `wanted`; returns the last line.
    @discardableResult
    func waitForMonitors(_ bus: PrivateBus, _ adapter: String, _ wanted: String) async throws -> String {
        var line = ""
        for _ in 0..<100 {
            line = try await drive(bus, ["monitors", adapter])
            if line.contains(wanted) { return line }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DriverFailure(description: "timed out waiting for '\(wanted)'; last: \(line)")
    }

    /// A mock adapter that offers a monitor, with one device, and a subscribed scanner (`.automatic`, for
    /// region monitoring: hearing that a beacon is there is enough), available.
    func scanningPassively(_ mode: BlueZScanMode = .automatic, ranging: Bool = false) async throws
        -> (PrivateBus, DBusClient, BlueZScanner, Recorder<BeaconScanEvent>, BeaconScanSubscription)
    {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["monitor-adapter", "hci0", "--", "device", "hci0", Self.address])
        let client = try bus.client()
        let scanner = BlueZScanner(client: client, scanMode: mode)
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe(wantsEveryAdvertisement: ranging) { recorder.append($0) }
        try await waitUntil(recorder, "available") { availability($0) == true }
        return (bus, client, scanner, recorder, subscription)
    }

    @Test func passiveScanningRegistersTheBeaconMonitorAndDoesNotDiscover() async throws {
        let (bus, client, scanner, recorder, subscription) = try await scanningPassively()
        #expect(scanner.isScanningPassively)
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("registered 1 unregistered 0"))

        // What bluetoothd reads from our ObjectManager: one or_patterns monitor with exactly the three frames.
        let activated = try await drive(bus, ["activate", "hci0", client.uniqueName])
        let monitors = activated.split(separator: "\n").filter { $0.hasPrefix("monitor ") }
        #expect(monitors.count == 1, "\(activated)")
        #expect(activated.contains("type or_patterns \(Self.beaconPatterns)"), "\(activated)")
        #expect(try await drive(bus, ["filter", "hci0"]).contains("filter none discovering False"), "no discovery")
        #expect(try await drive(bus, ["monitor-call", "hci0", client.uniqueName, "DeviceFound", Self.address]) == "ok\n")

        try await drive(bus, ["advert", "hci0", Self.address, "-58", "m", "004c", Self.ibeacon])
        try await waitUntil(recorder, "an advert") { adverts($0).count == 1 }
        #expect(adverts(recorder.values).first?.rssi == -58)
        #expect(adverts(recorder.values).first?.frames.map(\.format) == [.iBeacon])
        // Heard again with its RSSI within 8 dB: bluetoothd calls DeviceFound and changes no property. The
        // beacon is there (its frames), with no new reading (RSSI 0, not the stale −58).
        #expect(try await drive(bus, ["monitor-call", "hci0", client.uniqueName, "DeviceFound", Self.address]) == "ok\n")
        try await waitUntil(recorder, "a presence") { adverts($0).count == 2 }
        #expect(adverts(recorder.values).last?.rssi == 0)
        #expect(adverts(recorder.values).last?.frames.map(\.format) == [.iBeacon])

        subscription.cancel()
        let after = try await waitForMonitors(bus, "hci0", "unregistered 1")
        #expect(after.hasPrefix("roots none"), "\(after)")
        #expect(!scanner.isScanningPassively)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"), "never discovered")
    }

    /// `auto`: while something ranges, discovery runs beside the monitor (every reading); after the last
    /// ranging subscriber it stops and the monitor goes on. `passive` never discovers, ranging or not.
    @Test func rangingBesideTheMonitorDiscoversUntilItStops() async throws {
        let (bus, _, scanner, _, regions) = try await scanningPassively()
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"))
        let ranging = scanner.subscribe { _ in }
        try await waitForDiscovery(bus, true)
        let filter = try await drive(bus, ["filter", "hci0"])
        #expect(filter.contains("DuplicateData=1") && filter.contains("discovering True"), "\(filter)")
        #expect(scanner.isScanningPassively, "the monitor stays")
        ranging.cancel()
        try await waitForDiscovery(bus, false)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"))
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("registered 1 unregistered 0"))
        regions.cancel()
        try await waitForMonitors(bus, "hci0", "unregistered 1")

        let (passiveBus, _, _, _, passiveRanging) = try await scanningPassively(.passive, ranging: true)
        try await waitForMonitors(passiveBus, "hci0", "registered 1")
        // The set-up starts any discovery before it announces the scanner available.
        #expect(try await drive(passiveBus, ["filter", "hci0"]).contains("discovering False"))
        passiveRanging.cancel()
    }

    @Test func aReleasedMonitorFallsBackToDiscovery() async throws {
        let (bus, client, scanner, recorder, subscription) = try await scanningPassively()
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("registered 1 unregistered 0"))

        #expect(try await drive(bus, ["monitor-call", "hci0", client.uniqueName, "Release"]) == "ok\n")
        try await waitForDiscovery(bus, true)
        let filter = try await drive(bus, ["filter", "hci0"])
        #expect(filter.contains("DuplicateData=1") && filter.contains("discovering True"), "\(filter)")
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("roots none registered 1 unregistered 1"))
        #expect(!scanner.isScanningPassively)
        #expect(availability(recorder.values) == true, "no gap in availability")
        try await drive(bus, ["advert", "hci0", Self.address, "-66", "m", "004c", Self.ibeacon])
        try await waitUntil(recorder, "an advert while discovering") { adverts($0).count == 1 }

        subscription.cancel()
        try await waitForDiscovery(bus, false)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"))
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("registered 1 unregistered 1"), "no second register")
    }

    /// Discovery as before when the monitor cannot be had: RegisterMonitor refused, a manager without
    /// or_patterns, or `.active` asked for.
    @Test(arguments: [
        (["monitor-adapter", "hci0", "fail"], BlueZScanMode.automatic, "registered 0"),
        (["monitor-adapter", "hci0", "something_else"], .automatic, "registered 0"),
        (["monitor-adapter", "hci0"], .active, "registered 0"),
    ])
    func discoveryWhenTheMonitorCannotBeHad(setup: [String], mode: BlueZScanMode, registered: String) async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, setup)
        let scanner = BlueZScanner(client: try bus.client(), scanMode: mode)
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe { recorder.append($0) }
        try await waitUntil(recorder, "available") { availability($0) == true }
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering True"))
        #expect(try await drive(bus, ["monitors", "hci0"]).contains("roots none \(registered)"))
        #expect(!scanner.isScanningPassively)
        subscription.cancel()
    }

    /// `.passive` never discovers: without a monitor manager the scanner is unavailable.
    @Test func passiveOnlyWithoutAManagerIsUnavailable() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["adapter", "hci0"])
        let scanner = BlueZScanner(client: try bus.client(), scanMode: .passive)
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe { recorder.append($0) }
        try await waitUntil(recorder, "unavailable") { availability($0) == false }
        #expect(!scanner.isAvailable)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("filter none discovering False"))
        subscription.cancel()
    }

    @Test func theMonitorIsRegisteredAgainAfterBluetoothdRestarts() async throws {
        let bus = try PrivateBus()
        let mock = try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["monitor-adapter", "hci0"])
        let client = try bus.client()
        let scanner = BlueZScanner(client: client, scanMode: .automatic)
        let recorder = Recorder<BeaconScanEvent>()
        // Region monitoring: hearing that a beacon is there is enough (no discovery beside the monitor).
        let subscription = scanner.subscribe(wantsEveryAdvertisement: false) { recorder.append($0) }
        try await waitUntil(recorder, "available") { availability($0) == true }
        try await waitForMonitors(bus, "hci0", "registered 1")

        bus.stopMock(mock)
        try await waitUntil(recorder, "unavailable without bluetoothd") { availability($0) == false }
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["monitor-adapter", "hci1", "--", "device", "hci1", Self.address])
        try await waitUntil(recorder, "available again") { availability($0) == true }
        let line = try await waitForMonitors(bus, "hci1", "registered 1")
        #expect(line.contains("unregistered 0"), "\(line)")
        #expect(try await drive(bus, ["activate", "hci1", client.uniqueName]).contains(Self.beaconPatterns))
        #expect(try await drive(bus, ["filter", "hci1"]).contains("filter none discovering False"))
        #expect(scanner.isScanningPassively)
        try await drive(bus, ["advert", "hci1", Self.address, "-71", "m", "004c", Self.ibeacon])
        try await waitUntil(recorder, "an advert from the new bluetoothd") { adverts($0).count == 1 }
        #expect(adverts(recorder.values).first?.rssi == -71)
        subscription.cancel()
        try await waitForMonitors(bus, "hci1", "unregistered 1")
    }
}

import CoreLocationBeacons
import CoreLocationDBus
import CoreLocationDBusTestSupport
import Foundation
import Testing

struct DriverFailure: Error, CustomStringConvertible {
    var description: String
}

/// BlueZ over D-Bus: python-dbusmock's bluez5 template on a private bus, driven by Fixtures/bluez_driver.py.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
struct BlueZScannerTests {
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/bluez_driver.py").path
    static let address = "C0:FF:EE:00:00:01"
    static let ibeacon = "021583256b7478d043a4826905f9dc8a44ba00100020c6"

    @discardableResult
    func drive(_ bus: PrivateBus, _ words: [String]) async throws -> String {
        let result = try await bus.runScript(Self.driver, arguments: words)
        guard result.status == 0 else { throw DriverFailure(description: "driver: \(result.output)") }
        return result.output
    }

    /// Waits (bounded: a broken test must not hang) until `condition` holds for what was recorded.
    func waitUntil(
        _ recorder: Recorder<BeaconScanEvent>, _ what: String, _ condition: ([BeaconScanEvent]) -> Bool
    ) async throws {
        for _ in 0..<500 {
            if condition(recorder.values) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw DriverFailure(description: "timed out waiting for \(what)")
    }

    /// Waits (bounded) until the adapter's Discovering is `discovering`.
    func waitForDiscovery(_ bus: PrivateBus, _ discovering: Bool) async throws {
        let wanted = discovering ? "discovering True" : "discovering False"
        for _ in 0..<50 {
            if try await drive(bus, ["filter", "hci0"]).contains(wanted) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func availability(_ events: [BeaconScanEvent]) -> Bool? {
        events.last { if case .availability = $0 { true } else { false } }.flatMap {
            if case .availability(let value) = $0 { value } else { nil }
        }
    }

    func adverts(_ events: [BeaconScanEvent]) -> [BeaconAdvertisement] {
        events.compactMap { if case .advertisement(let advert) = $0 { advert } else { nil } }
    }

    @Test func discoversLEWithDuplicatesAndDecodesAdverts() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["adapter", "hci0", "--", "device", "hci0", Self.address])
        let scanner = BlueZScanner(client: try bus.client())
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe { recorder.append($0) }
        try await waitUntil(recorder, "available") { availability($0) == true }
        #expect(scanner.adapterPath == "/org/bluez/hci0")
        let filter = try await drive(bus, ["filter", "hci0"])
        #expect(filter.contains("DuplicateData=1") && filter.contains("Transport=le"), "\(filter)")
        #expect(filter.contains("discovering True"))

        try await drive(bus, ["advert", "hci0", Self.address, "-61", "m", "004c", Self.ibeacon])
        try await drive(bus, [
            "advert", "hci0", Self.address, "-63", "s", BeaconFrame.eddystoneService,
            "00f8e157bd5df90aad1dc2fb0000000000010000",
        ])
        try await waitUntil(recorder, "two adverts") { adverts($0).count >= 2 }
        let heard = adverts(recorder.values)
        #expect(heard.map(\.rssi) == [-61, -63])
        #expect(heard.map(\.address) == [Self.address, Self.address])
        #expect(heard[0].frames.map(\.format) == [.iBeacon])
        // The second advertisement carries service data; the device's last manufacturer data is kept with it.
        #expect(Set(heard[1].frames.map(\.format)) == [.iBeacon, .eddystoneUID])

        subscription.cancel()
        try await waitForDiscovery(bus, false)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"), "stopped after the last user")
    }

    @Test func discoveryIsSharedAndStoppedAfterTheLastUser() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["adapter", "hci0"])
        let scanner = BlueZScanner(client: try bus.client())
        let first = Recorder<BeaconScanEvent>()
        let second = Recorder<BeaconScanEvent>()
        let a = scanner.subscribe { first.append($0) }
        try await waitUntil(first, "available") { availability($0) == true }
        let b = scanner.subscribe { second.append($0) }
        #expect(availability(second.values) == true, "a later user hears the current availability at once")
        a.cancel()
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering True"), "one user left")
        b.cancel()
        try await waitForDiscovery(bus, false)
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"))
    }

    @Test func noAdapterThenAnAdapterAppears() async throws {
        let bus = try PrivateBus()
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        let scanner = BlueZScanner(client: try bus.client())
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe { recorder.append($0) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!scanner.isAvailable)
        try await drive(bus, ["adapter", "hci0"])
        try await waitUntil(recorder, "available") { availability($0) == true }
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering True"))
        subscription.cancel()
    }

    /// `checkAvailability` (behind `CLLocationManager.isRangingAvailable()`) asks without scanning: false with
    /// no adapter or a powered-off one, true with a powered one, false with no bluetoothd at all; asked from
    /// several tasks at once (the pool's threads blocked) it still answers, since the reply comes on the
    /// D-Bus thread.
    @Test func availabilityIsAskedWithoutScanning() async throws {
        let bus = try PrivateBus()
        let mock = try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        let scanner = BlueZScanner(client: try bus.client())
        #expect(!scanner.checkAvailability(timeout: .seconds(2)))
        try await drive(bus, ["adapter", "hci0"])
        #expect(scanner.checkAvailability(timeout: .seconds(2)))
        #expect(try await drive(bus, ["filter", "hci0"]).contains("discovering False"), "asking does not scan")
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { scanner.checkAvailability(timeout: .seconds(2)) } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers == [true, true, true, true])
        try await drive(bus, ["power", "hci0", "off"])
        #expect(!scanner.checkAvailability(timeout: .seconds(2)))
        bus.stopMock(mock)
        #expect(!scanner.checkAvailability(timeout: .seconds(2)))
    }

    @Test func adapterPoweredOffRemovedAndBluetoothdGoneAreSurvived() async throws {
        let bus = try PrivateBus()
        let mock = try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["adapter", "hci0", "--", "device", "hci0", Self.address])
        let scanner = BlueZScanner(client: try bus.client())
        let recorder = Recorder<BeaconScanEvent>()
        let subscription = scanner.subscribe { recorder.append($0) }
        try await waitUntil(recorder, "available") { availability($0) == true }

        try await drive(bus, ["power", "hci0", "off"])
        try await waitUntil(recorder, "unavailable after power off") { availability($0) == false }
        try await drive(bus, ["advert", "hci0", Self.address, "-61", "m", "004c", Self.ibeacon])
        try await drive(bus, ["power", "hci0", "on"])
        try await waitUntil(recorder, "available after power on") { availability($0) == true }
        #expect(adverts(recorder.values).isEmpty, "nothing is heard from a powered-off adapter")
        try await drive(bus, ["advert", "hci0", Self.address, "-62", "m", "004c", Self.ibeacon])
        try await waitUntil(recorder, "an advert after power on") { adverts($0).count == 1 }

        try await drive(bus, ["remove-adapter", "hci0"])
        try await waitUntil(recorder, "unavailable after removal") { availability($0) == false }

        bus.stopMock(mock)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!scanner.isAvailable)
        try await bus.startMock(name: BlueZScanner.service, arguments: ["--template", "bluez5"])
        try await drive(bus, ["adapter", "hci1", "--", "device", "hci1", Self.address])
        try await waitUntil(recorder, "available on a restarted bluetoothd") { availability($0) == true }
        #expect(scanner.adapterPath == "/org/bluez/hci1")
        try await drive(bus, ["advert", "hci1", Self.address, "-70", "m", "004c", Self.ibeacon])
        try await waitUntil(recorder, "an advert from the new bluetoothd") { adverts($0).count == 2 }
        #expect(adverts(recorder.values).last?.rssi == -70)
        subscription.cancel()
    }
}

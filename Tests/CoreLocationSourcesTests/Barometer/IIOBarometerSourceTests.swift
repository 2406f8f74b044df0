import CoreLocationEngine
import Foundation
import Synchronization
import Testing

@testable import CoreLocationSources

/// The barometer source: polled at its rate only between start and stop, bad readings turned into a
/// clear `.unavailable`, never a pressure.
@Suite struct IIOBarometerSourceTests {
    final class Events: Sendable {
        private let storage = Mutex<[SourceEvent]>([])
        var all: [SourceEvent] { storage.withLock { $0 } }
        func append(_ event: SourceEvent) { storage.withLock { $0.append(event) } }
    }

    func bmp280(_ fake: FakeSysfs, _ hectopascals: Double) throws {
        try IIOPressureDeviceTests.Layout.bmp280.write(fake, 0, hectopascals: hectopascals)
    }

    @Test func pollsAtItsRateOnlyWhileStarted() throws {
        let fake = try FakeSysfs()
        try bmp280(fake, 1000)
        let sensor = try #require(IIOPressureDevice.devices(sysfsRoot: fake.root).first)
        let scheduler = ManualScheduler()
        let source = IIOBarometerSource(sensor: sensor, scheduler: scheduler)
        #expect(source.descriptor.isBarometer)
        let events = Events()
        scheduler.advance(by: 5)
        source.start { events.append($0) }
        scheduler.runDue()  // the first reading, due at once
        for step in 1...4 {
            try bmp280(fake, 1000 + Double(step) * 0.01)
            scheduler.advance(by: 0.5)
        }
        source.stop()
        scheduler.advance(by: 10)
        let pressures = events.all.compactMap { event -> Double? in
            if case let .pressure(sample) = event { return sample.hectopascals } else { return nil }
        }
        // At start, then every 0.5 s: 5 readings in 2 s, none after stop.
        #expect(pressures.count == 5)
        #expect(abs(pressures[0] - 1000) < 1e-6)
        #expect(abs(pressures[4] - 1000.04) < 1e-6)
    }

    @Test(arguments: [
        ("0", "zero or negative"), ("-101.3", "zero or negative"), ("nan", "not a number"),
        ("20.5", "outside the sensor's range"), ("130", "outside the sensor's range"), ("garbage", "does not hold a number"),
    ])
    func badReadingsAreUnavailable(text: String, expected: String) throws {
        let fake = try FakeSysfs()
        try bmp280(fake, 1000)
        try fake.write(0, "in_pressure_input", text)
        let sensor = try #require(IIOPressureDevice.devices(sysfsRoot: fake.root).first)
        let source = IIOBarometerSource(sensor: sensor, scheduler: ManualScheduler())
        guard case let .unavailable(reason) = source.readEvent() else {
            Issue.record("\(text) gave a pressure")
            return
        }
        #expect(reason.contains(expected))
        #expect(reason.hasPrefix("iio:device0 (bmp280): "))
    }

    @Test func stuckSensorIsUnavailableUntilItMovesAgain() throws {
        let fake = try FakeSysfs()
        try bmp280(fake, 1000.5)
        let sensor = try #require(IIOPressureDevice.devices(sysfsRoot: fake.root).first)
        let source = IIOBarometerSource(sensor: sensor, scheduler: ManualScheduler())
        var outcomes: [Bool] = []
        for _ in 0..<35 {
            if case .pressure = source.readEvent() { outcomes.append(true) } else { outcomes.append(false) }
        }
        #expect(outcomes.prefix(29).allSatisfy { $0 })
        #expect(outcomes.dropFirst(29).allSatisfy { !$0 })
        guard case let .unavailable(reason) = source.readEvent() else {
            Issue.record("stuck sensor gave a pressure")
            return
        }
        #expect(reason.contains("stuck at 1000.5 hPa"))
        try bmp280(fake, 1000.52)
        guard case .pressure = source.readEvent() else {
            Issue.record("a moving sensor stays unavailable")
            return
        }
    }

    @Test func removedDeviceIsUnavailable() throws {
        let fake = try FakeSysfs()
        try bmp280(fake, 1000)
        let sensor = try #require(IIOPressureDevice.devices(sysfsRoot: fake.root).first)
        let source = IIOBarometerSource(sensor: sensor, scheduler: ManualScheduler())
        try fake.remove(0)
        guard case let .unavailable(reason) = source.readEvent() else {
            Issue.record("a removed device gave a pressure")
            return
        }
        #expect(reason.contains("disappeared"))
    }
}

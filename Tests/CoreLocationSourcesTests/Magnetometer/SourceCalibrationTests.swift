import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

struct SourceCalibrationTests {
    /// The device is turned through 100 seeded orientations while a hard-iron offset (15, −8, 20) µT
    /// sits on the raw readings. After `refitEvery` (50) samples the source adopts a fit, saves it with
    /// mode 0600, and its corrected field no longer carries the offset: the strength of the corrected
    /// samples is the true 49.2 µT (√(20² + 45²)) within 1 µT, and a new source loads the saved fit.
    @Test func learnsPersistsAndReloads() throws {
        let fake = try FakeSysfs()
        let storeDirectory = fake.root + "/xdg/corelocation/magnetometer"
        let store = MagnetometerCalibrationStore(directory: storeDirectory)
        try fake.write(0, "name", "ak09911")
        try fake.write(0, "in_magn_scale", "0.001")
        let offset = DeviceVector(x: 15, y: -8, z: 20)
        func turn(_ attitude: Attitude) throws {
            let device = attitude.toDevice(DeviceVector(x: 0, y: 20, z: -45)) + offset
            try fake.writeRaw(0, type: "magn", (1.0 / 100) * device, perCount: 0.001)
        }
        var random = SplitMix64(seed: 11)
        try turn(Attitude(yaw: 0, pitch: 0, roll: 0))
        let source = try #require(
            IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: store))
        var last: HeadingSample?
        for _ in 0..<100 {
            try turn(
                Attitude(
                    yaw: .random(in: 0..<360, using: &random), pitch: .random(in: -80...80, using: &random),
                    roll: .random(in: -180...180, using: &random)))
            if case .sample(let sample) = source.readEvent() { last = sample }
        }
        let calibration = try #require(source.calibration)
        #expect(abs(calibration.offset.x - 15) < 0.5 && abs(calibration.offset.y + 8) < 0.5)
        #expect(abs(calibration.offset.z - 20) < 0.5)
        let sample = try #require(last)
        #expect(abs(sample.field.length - (20.0 * 20 + 45 * 45).squareRoot()) < 1)
        #expect(sample.accuracy >= 2 && sample.accuracy < 5)

        let path = store.path(for: "ak09911-iio:device0")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let again = try #require(
            IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: store))
        #expect(again.calibration == calibration)
    }

    /// The simulated device: heading = start + rate·t, delivered every `interval` on the scheduler.
    @Test func simulatedSourceTurnsAtItsRate() throws {
        let scheduler = ManualScheduler()
        let source = SimulatedHeadingSource(
            startHeading: 350, rate: 20, interval: 0.5, noise: 0.01, scheduler: scheduler)
        let recorder = HeadingEventRecorder()
        source.start { event in
            if case .sample(let sample) = event { recorder.record(sample: sample, unavailable: nil) }
        }
        scheduler.advance(by: 2.1)
        source.stop()
        scheduler.advance(by: 2)
        let headings = recorder.samples.compactMap {
            HeadingMath.magneticHeading(field: $0.field, gravity: $0.gravity, orientation: .portrait)
        }
        #expect(headings.count == 5)
        for (i, heading) in headings.enumerated() {
            #expect(HeadingMath.difference(heading, 350 + 20 * 0.5 * Double(i)) < 0.1)
        }
    }
}

import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

/// Fake sysfs trees whose raw values encode a known attitude: Earth's field (H = 20 µT towards
/// magnetic north, Z = 45 µT down) and gravity expressed in the device frame of a known yaw, pitch
/// and roll, written as integer counts with the driver's scale (0.001 G = 0.1 µT per count for the
/// magnetometer; quantisation moves the heading by at most atan(0.1·√2 / 20·cos θ) ≈ 0.5°).
struct IIOHeadingSourceTests {
    static let fieldWorld = DeviceVector(x: 0, y: 20, z: -45)  // east, north, up; µT
    static let gravityWorld = DeviceVector(x: 0, y: 0, z: 9.80665)

    func makeTree(_ attitude: Attitude, accelerometer: Bool) throws -> FakeSysfs {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "ak8975")
        try fake.write(0, "in_magn_scale", "0.001")
        try fake.writeRaw(0, type: "magn", (1.0 / 100) * attitude.toDevice(Self.fieldWorld), perCount: 0.001)
        if accelerometer {
            try fake.write(1, "name", "bmc150_accel")
            try fake.write(1, "in_accel_x_scale", "0.00981")
            try fake.write(1, "in_accel_y_scale", "0.00981")
            try fake.write(1, "in_accel_z_scale", "0.00981")
            try fake.writeRaw(1, type: "accel", attitude.toDevice(Self.gravityWorld), perCount: 0.00981)
        }
        return fake
    }

    func heading(from fake: FakeSysfs, orientation: HeadingOrientation) throws -> Double? {
        let source = try #require(
            IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: nil))
        guard case .sample(let sample) = source.readEvent() else {
            Issue.record("no sample")
            return nil
        }
        return HeadingMath.magneticHeading(field: sample.field, gravity: sample.gravity, orientation: orientation)
    }

    @Test(arguments: [(0.0, 0.0, 0.0), (30, 20, -15), (135, -25, 10), (250, 10, 30), (359, 35, -30)])
    func tiltCompensatedHeadingIsTheYaw(yaw: Double, pitch: Double, roll: Double) throws {
        let fake = try makeTree(Attitude(yaw: yaw, pitch: pitch, roll: roll), accelerometer: true)
        let heading = try #require(try heading(from: fake, orientation: .faceUp))
        #expect(HeadingMath.difference(heading, yaw) < 0.5, "got \(heading)")
    }

    /// Without an accelerometer the device is taken as flat: a 25° pitch and 30° roll then move the
    /// heading far (here by more than 10°), which is why the accelerometer is used when present.
    @Test func withoutAccelerometerTiltMisleads() throws {
        let fake = try makeTree(Attitude(yaw: 60, pitch: 25, roll: 30), accelerometer: false)
        let heading = try #require(try heading(from: fake, orientation: .faceUp))
        #expect(HeadingMath.difference(heading, 60) > 10)
        let flat = try makeTree(Attitude(yaw: 60, pitch: 0, roll: 0), accelerometer: false)
        #expect(HeadingMath.difference(try #require(try self.heading(from: flat, orientation: .faceUp)), 60) < 0.5)
    }

    /// Per-axis scale and offset: value = (raw + offset) × scale, Gauss → µT.
    @Test func perAxisScaleAndOffset() throws {
        let fake = try FakeSysfs()
        for (axis, raw) in [("x", "100"), ("y", "-200"), ("z", "300")] {
            try fake.write(0, "in_magn_\(axis)_raw", raw)
            try fake.write(0, "in_magn_\(axis)_scale", "0.002")
            try fake.write(0, "in_magn_\(axis)_offset", "10")
        }
        let device = try #require(IIODevice.devices(withChannel: "magn", sysfsRoot: fake.root).first)
        let reading = try device.read("magn")
        #expect(abs(reading.value.x - 0.22) < 1e-12 && abs(reading.value.y + 0.38) < 1e-12)
        #expect(abs(reading.value.z - 0.62) < 1e-12 && !reading.isSaturated)
        #expect(device.name == "iio:device0")
    }

    @Test func saturationIsFlagged() throws {
        let fake = try makeTree(Attitude(yaw: 0, pitch: 0, roll: 0), accelerometer: false)
        try fake.write(0, "in_magn_z_raw", "32767")
        let source = try #require(
            IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: nil))
        guard case .sample(let sample) = source.readEvent() else {
            Issue.record("no sample")
            return
        }
        #expect(sample.isSaturated)
    }

    /// A device that disappears while polled is reported unavailable on every poll, never a heading.
    @Test func disappearingDeviceIsUnavailable() throws {
        let fake = try makeTree(Attitude(yaw: 45, pitch: 0, roll: 0), accelerometer: false)
        let scheduler = ManualScheduler()
        let source = try #require(IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: scheduler, store: nil))
        let recorder = HeadingEventRecorder()
        source.start { event in
            switch event {
            case .sample(let sample): recorder.record(sample: sample, unavailable: nil)
            case .unavailable(let reason): recorder.record(sample: nil, unavailable: reason)
            }
        }
        scheduler.advance(by: 0.35)
        #expect(recorder.samples.count == 4 && recorder.failures.isEmpty)
        try fake.remove(0)
        scheduler.advance(by: 0.2)
        #expect(recorder.samples.count == 4)
        #expect(recorder.failures.count == 2 && recorder.failures.allSatisfy { $0.contains("iio:device0") })
        source.stop()
        scheduler.advance(by: 1)
        #expect(recorder.failures.count == 2)
    }

    @Test func noDevicesNoSource() throws {
        let fake = try FakeSysfs()
        #expect(IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: nil) == nil)
    }
}

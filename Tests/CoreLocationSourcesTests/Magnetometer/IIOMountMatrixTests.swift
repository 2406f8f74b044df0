import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

/// Mounting matrices (sysfs-bus-iio "mount_matrix"): `v_main = M · v_chip`. The fake trees hold
/// what a chip mounted with matrix M reports for a device in a known attitude, `v_chip = Mᵀ · v_main`
/// (M is a rotation, so Mᵀ = M⁻¹); the heading must be the device's yaw again.
struct IIOMountMatrixTests {
    /// Chip x along the board's y, chip y along the board's −x (rotated 90° about z): row i is board
    /// axis i in chip coordinates.
    static let rotated90 = "0, -1, 0; 1, 0, 0; 0, 0, 1"
    /// Mounted upside down on the underside of the board (180° about y).
    static let flipped = "-1, 0, 0; 0, 1, 0; 0, 0, -1"
    /// The ABI document's example shape: x and y swapped, z reversed.
    static let swapped = "0, 1, 0; 1, 0, 0; 0, 0, -1"

    static func chip(_ main: DeviceVector, mount: String) throws -> DeviceVector {
        let m = try #require(IIOMountMatrix(mount))
        let columns = (
            DeviceVector(x: m.rows.0.x, y: m.rows.1.x, z: m.rows.2.x),
            DeviceVector(x: m.rows.0.y, y: m.rows.1.y, z: m.rows.2.y),
            DeviceVector(x: m.rows.0.z, y: m.rows.1.z, z: m.rows.2.z)
        )
        return DeviceVector(x: columns.0.dot(main), y: columns.1.dot(main), z: columns.2.dot(main))
    }

    /// A tree whose magnetometer and accelerometer chips are mounted with the given matrices
    /// (written under `magnFile` / `accelFile`).
    func makeTree(
        _ attitude: Attitude, magnMount: String?, magnFile: String = "in_magn_mount_matrix",
        accelMount: String?, accelFile: String = "in_accel_mount_matrix"
    ) throws -> FakeSysfs {
        let fake = try FakeSysfs()
        let field = (1.0 / 100) * attitude.toDevice(IIOHeadingSourceTests.fieldWorld)
        let gravity = attitude.toDevice(IIOHeadingSourceTests.gravityWorld)
        try fake.write(0, "name", "ak8975")
        try fake.write(0, "in_magn_scale", "0.001")
        let identity = "1, 0, 0; 0, 1, 0; 0, 0, 1"
        try fake.writeRaw(0, type: "magn", try Self.chip(field, mount: magnMount ?? identity), perCount: 0.001)
        if let magnMount { try fake.write(0, magnFile, magnMount) }
        try fake.write(1, "name", "bmc150_accel")
        try fake.write(1, "in_accel_scale", "0.00981")
        try fake.writeRaw(
            1, type: "accel", try Self.chip(gravity, mount: accelMount ?? identity), perCount: 0.00981)
        if let accelMount { try fake.write(1, accelFile, accelMount) }
        return fake
    }

    func heading(_ fake: FakeSysfs) throws -> Double {
        let source = try #require(
            IIOHeadingSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler(), store: nil))
        guard case .sample(let sample) = source.readEvent() else { throw IIOError(message: "no sample") }
        return try #require(
            HeadingMath.magneticHeading(field: sample.field, gravity: sample.gravity, orientation: .faceUp))
    }

    @Test(arguments: [
        (rotated90, flipped, 30.0, 20.0, -15.0), (swapped, rotated90, 135, -25, 10), (flipped, swapped, 250, 10, 30),
        (rotated90, rotated90, 359, 35, -30),
    ])
    func rotatedMountsGiveTheDevicesHeading(magn: String, accel: String, yaw: Double, pitch: Double, roll: Double)
        throws
    {
        let fake = try makeTree(Attitude(yaw: yaw, pitch: pitch, roll: roll), magnMount: magn, accelMount: accel)
        let heading = try heading(fake)
        // Same quantisation bound as IIOHeadingSourceTests (0.5°).
        #expect(HeadingMath.difference(heading, yaw) < 0.5, "got \(heading)")
    }

    /// The regression this guards: with the matrices removed, the same chip readings give a heading
    /// far from the device's (here the chip is turned 90° on the board: about 90° off).
    @Test func ignoringTheMatrixWouldBeWrong() throws {
        let fake = try makeTree(Attitude(yaw: 60, pitch: 0, roll: 0), magnMount: Self.rotated90, accelMount: nil)
        #expect(HeadingMath.difference(try heading(fake), 60) < 0.5)
        try FileManager.default.removeItem(atPath: fake.devicePath(0) + "/in_magn_mount_matrix")
        #expect(abs(HeadingMath.difference(try heading(fake), 60) - 90) < 0.5)
    }

    /// `in_mount_matrix` (all input channels) and `mount_matrix` (the device) apply when the
    /// per-type file is absent; the per-type file wins over both.
    @Test func sharedFilesAndPrecedence() throws {
        for file in ["in_mount_matrix", "mount_matrix"] {
            let fake = try makeTree(
                Attitude(yaw: 200, pitch: 15, roll: 5), magnMount: Self.swapped, magnFile: file,
                accelMount: Self.flipped, accelFile: file)
            #expect(HeadingMath.difference(try heading(fake), 200) < 0.5, "\(file)")
        }
        let fake = try makeTree(Attitude(yaw: 10, pitch: 0, roll: 0), magnMount: Self.rotated90, accelMount: nil)
        try fake.write(0, "in_mount_matrix", Self.swapped)
        try fake.write(0, "mount_matrix", Self.flipped)
        let device = IIODevice(path: fake.devicePath(0))
        #expect(device.mountMatrix(for: "magn").matrix == IIOMountMatrix(Self.rotated90))
        #expect(device.mountMatrix(for: "accel").matrix == IIOMountMatrix(Self.swapped))
        #expect(HeadingMath.difference(try heading(fake), 10) < 0.5)
    }

    @Test func parsing() throws {
        let m = try #require(IIOMountMatrix(" 0, 1, 0; 1, 0, 0; 0, 0, -1\n"))
        #expect(m.apply(DeviceVector(x: 1, y: 2, z: 3)) == DeviceVector(x: 2, y: 1, z: -3))
        #expect(IIOMountMatrix("1, 0, 0; 0, 1, 0; 0, 0, 1")?.isIdentity == true)
        // A 45° rotation about z as a device tree writes it (4 digits).
        let r45 = try #require(IIOMountMatrix("0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1"))
        let v = r45.apply(DeviceVector(x: 1, y: 0, z: 0))
        #expect(abs(v.x - 0.7071) < 1e-12 && abs(v.y - 0.7071) < 1e-12)
        for bad in [
            "", "1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0", "1, 0, 0; 0, 1, 0; 0, 0, x", "1,0,0;0,1,0;0,0,1;0,0,0",
            "0, 0, 0; 0, 1, 0; 0, 0, 1", "2, 0, 0; 0, 1, 0; 0, 0, 1", "0.7071, 0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1",
            "nan, 0, 0; 0, 1, 0; 0, 0, 1",
        ] {
            #expect(IIOMountMatrix(bad) == nil, "\(bad)")
        }
    }

    /// A malformed file is reported and ignored (samples used as the chip gives them).
    @Test func malformedFileFallsBackToIdentity() throws {
        let fake = try makeTree(Attitude(yaw: 75, pitch: 0, roll: 0), magnMount: nil, accelMount: nil)
        try fake.write(0, "in_magn_mount_matrix", "1, 0, 0; 0, 1")
        let found = IIODevice(path: fake.devicePath(0)).mountMatrix(for: "magn")
        #expect(found.matrix.isIdentity)
        #expect(found.problem?.contains("in_magn_mount_matrix") == true)
        #expect(HeadingMath.difference(try heading(fake), 75) < 0.5)
    }
}

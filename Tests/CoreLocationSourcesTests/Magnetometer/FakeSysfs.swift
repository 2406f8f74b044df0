import Foundation
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import Synchronization

/// A fake sysfs tree in a temporary directory: `<root>/bus/iio/devices/iio:deviceN/...`, removed with the
/// last reference (also when a helper that builds one throws half-way).
final class FakeSysfs: Sendable {
    private let directory: ScratchDirectory
    var root: String { directory.url.path }

    init() throws {
        directory = try ScratchDirectory("fake-sysfs")
        try FileManager.default.createDirectory(atPath: root + "/bus/iio/devices", withIntermediateDirectories: true)
    }

    func devicePath(_ index: Int) -> String { root + "/bus/iio/devices/iio:device\(index)" }

    func write(_ index: Int, _ file: String, _ value: String) throws {
        try FileManager.default.createDirectory(atPath: devicePath(index), withIntermediateDirectories: true)
        try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: devicePath(index) + "/" + file))
    }

    /// Writes a channel's three raw values, rounded to whole counts as a driver would.
    func writeRaw(_ index: Int, type: String, _ v: DeviceVector, perCount scale: Double) throws {
        try write(index, "in_\(type)_x_raw", String(Int((v.x / scale).rounded())))
        try write(index, "in_\(type)_y_raw", String(Int((v.y / scale).rounded())))
        try write(index, "in_\(type)_z_raw", String(Int((v.z / scale).rounded())))
    }

    func remove(_ index: Int) throws { try FileManager.default.removeItem(atPath: devicePath(index)) }
}

/// A device attitude: yaw ψ (the magnetic azimuth of the top of the device when flat), then a pitch
/// θ about the device's x axis (top up), then a roll φ about its y axis. Gives the device axes in a
/// world frame (east, north, up) so a world vector can be expressed in device coordinates exactly.
struct Attitude {
    var yaw: Double, pitch: Double, roll: Double

    func axes() -> (x: DeviceVector, y: DeviceVector, z: DeviceVector) {
        let r = Double.pi / 180
        let (sy, cy) = (sin(yaw * r), cos(yaw * r))
        var x = DeviceVector(x: cy, y: -sy, z: 0)
        var y = DeviceVector(x: sy, y: cy, z: 0)
        var z = DeviceVector(x: 0, y: 0, z: 1)
        let (sp, cp) = (sin(pitch * r), cos(pitch * r))
        (y, z) = (cp * y + sp * z, (-sp) * y + cp * z)
        let (sr, cr) = (sin(roll * r), cos(roll * r))
        (x, z) = (cr * x + (-sr) * z, sr * x + cr * z)
        return (x, y, z)
    }

    /// A world (east, north, up) vector in device coordinates.
    func toDevice(_ world: DeviceVector) -> DeviceVector {
        let a = axes()
        return DeviceVector(x: world.dot(a.x), y: world.dot(a.y), z: world.dot(a.z))
    }
}

/// Collects a heading source's events, from any thread.
final class HeadingEventRecorder: Sendable {
    private let storage = Mutex<[HeadingSourceEventBox]>([])
    struct HeadingSourceEventBox: Sendable {
        var samples: HeadingSample?
        var unavailable: String?
    }
    var samples: [HeadingSample] { storage.withLock { $0.compactMap(\.samples) } }
    var failures: [String] { storage.withLock { $0.compactMap(\.unavailable) } }
    func record(sample: HeadingSample?, unavailable: String?) {
        storage.withLock { $0.append(HeadingSourceEventBox(samples: sample, unavailable: unavailable)) }
    }
}

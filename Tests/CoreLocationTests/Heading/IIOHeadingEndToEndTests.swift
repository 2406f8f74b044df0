import Foundation
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import Testing

@testable import CoreLocation
import CoreLocationRuntime

/// The whole chain on a fake sysfs tree: IIO files → `IIOHeadingSource` → `HeadingRuntime` →
/// `CLLocationManager` delegate, on the harness's manual clock.
struct IIOHeadingEndToEndTests {
    /// A magnetometer (0.001 G per count) seeing H = 20 µT, Z = 45 µT from a flat device whose top points
    /// at magnetic azimuth `yaw`; no accelerometer (flat assumed).
    static func makeTree(yaw: Double) throws -> ScratchDirectory {
        let tree = try ScratchDirectory("e2e-sysfs")
        let device = tree.path("bus/iio/devices/iio:device0")
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try write(yaw: yaw, device: device)
        try "0.001\n".write(toFile: device + "/in_magn_scale", atomically: true, encoding: .utf8)
        try "lsm303dlhc_magn\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        return tree
    }

    static func write(yaw: Double, device: String) throws {
        let psi = yaw * .pi / 180
        // µT → G → counts (1 G = 100 µT, 0.001 G per count).
        let counts = [-20 * sin(psi), 20 * cos(psi), -45].map { Int(($0 / 100 / 0.001).rounded()) }
        for (axis, count) in zip(["x", "y", "z"], counts) {
            try "\(count)\n".write(toFile: "\(device)/in_magn_\(axis)_raw", atomically: true, encoding: .utf8)
        }
    }

    @Test func headingsFromSysfsThenFailureWhenTheDeviceVanishes() throws {
        let tree = try Self.makeTree(yaw: 123)
        let root = tree.url.path
        let h = try ManagerHarness()
        let source = try #require(IIOHeadingSource.discover(sysfsRoot: root, scheduler: h.scheduler, store: nil))
        h.runtime.useHeading(HeadingRuntime(source: source, scheduler: h.scheduler))
        let delegate = HeadingDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        manager.headingFilter = kCLHeadingFilterNone
        manager.startUpdatingHeading()
        h.advance(by: 0.25)
        let first = try #require(delegate.headings.first)
        // 0.1 µT quantisation on a 20 µT horizontal field: at most 0.3° off.
        #expect(HeadingMath.difference(first.magneticHeading, 123) < 0.3)
        #expect(first.headingAccuracy == -1)  // uncalibrated
        #expect(delegate.calibrationAsks == 1)

        try Self.write(yaw: 200, device: root + "/bus/iio/devices/iio:device0")
        h.advance(by: 0.1)
        #expect(HeadingMath.difference(try #require(delegate.headings.last).magneticHeading, 200) < 0.3)

        let count = delegate.headings.count
        try FileManager.default.removeItem(atPath: root + "/bus/iio/devices/iio:device0")
        h.advance(by: 0.5)
        #expect(delegate.errors == [.headingFailure])
        #expect(delegate.headings.count == count)
        manager.stopUpdatingHeading()
    }

    /// The environment picks the source: a sysfs root with a magnetometer, a simulation, or nothing.
    @Test func defaultRuntimeFromTheEnvironment() throws {
        let tree = try Self.makeTree(yaw: 0)
        let root = tree.url.path
        let iio = HeadingRuntime.makeDefault(environment: ["CORELOCATION_SYSFS_ROOT": root, "XDG_DATA_HOME": root])
        #expect(iio.isAvailable && iio.source?.isSimulated == false)
        let simulated = HeadingRuntime.makeDefault(environment: ["CORELOCATION_HEADING_SIMULATE": "30"])
        #expect(simulated.source?.isSimulated == true)
        let none = HeadingRuntime.makeDefault(environment: ["CORELOCATION_SYSFS_ROOT": root + "/nothing"])
        #expect(!none.isAvailable)
    }
}

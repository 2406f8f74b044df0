import CoreLocationEngine
import Foundation

/// An IIO accelerometer and gyroscope that make one inertial measurement unit: one device with both channel types
/// (bmi160, bmi270, inv_mpu6050 and the ICM-20948 it drives), or two devices of one chip (st_lsm6dsx registers
/// `<chip>_accel` and `<chip>_gyro`).
///
/// Found by channel type under `<sysfsRoot>/bus/iio/devices`: a device is an accelerometer when it has
/// `in_accel_{x,y,z}_raw` or the three `scan_elements/in_accel_{x,y,z}_en` (`buffer0/…` in buffers v2), a gyroscope
/// likewise with `anglvel`.
/// Pairing rule (decision 0096), first match wins, devices in directory-name order:
/// 1. a device with both channel types;
/// 2. an accelerometer and a gyroscope whose device directories (sysfs symlinks) resolve to the same parent device
///    (the chip on its bus, e.g. `…/i2c-1/1-006a`);
/// 3. an accelerometer and a gyroscope whose `name`s are equal once a trailing `_accel`/`-accel` or
///    `_gyro`/`-gyro`/`_anglvel` is removed (`lsm6dsm_accel` + `lsm6dsm_gyro`).
/// An accelerometer without a gyroscope is no IMU (the fusion filter needs the rate): nothing is found.
public struct IIOInertialSensors: Sendable, Hashable {
    public let accelerometer: IIODevice
    public let gyroscope: IIODevice

    public init(accelerometer: IIODevice, gyroscope: IIODevice) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
    }

    /// One device reads both.
    public var isCombined: Bool { accelerometer.path == gyroscope.path }

    /// The distinct devices, accelerometer first.
    public var devices: [IIODevice] { isCombined ? [accelerometer] : [accelerometer, gyroscope] }

    /// E.g. "iio:device0 (bmi160)", "iio:device1 (lsm6dsm_accel) + iio:device2 (lsm6dsm_gyro)".
    public var label: String { devices.map { "\($0.deviceName) (\($0.name))" }.joined(separator: " + ") }

    /// The channel types a device reads for this unit: "accel", "anglvel" or both.
    public func types(of device: IIODevice) -> [String] {
        if isCombined { return ["accel", "anglvel"] }
        return device.path == accelerometer.path ? ["accel"] : ["anglvel"]
    }

    /// The first unit under a sysfs root by the pairing rule; nil without one.
    public static func discover(sysfsRoot: String = "/sys") -> IIOInertialSensors? {
        let directory = sysfsRoot + "/bus/iio/devices"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let all = names.filter { $0.hasPrefix("iio:device") }.sorted { deviceNumber($0) < deviceNumber($1) }
            .map { directory + "/" + $0 }
        let accelerometers = all.filter { hasChannel("accel", at: $0) }.map { IIODevice(path: $0) }
        let gyroscopes = all.filter { hasChannel("anglvel", at: $0) }.map { IIODevice(path: $0) }
        if let both = accelerometers.first(where: { a in gyroscopes.contains { $0.path == a.path } }) {
            return IIOInertialSensors(accelerometer: both, gyroscope: both)
        }
        for accelerometer in accelerometers {
            guard let parent = physicalParent(accelerometer.path) else { continue }
            if let gyroscope = gyroscopes.first(where: { physicalParent($0.path) == parent }) {
                return IIOInertialSensors(accelerometer: accelerometer, gyroscope: gyroscope)
            }
        }
        for accelerometer in accelerometers {
            let stem = nameStem(accelerometer.name)
            if let gyroscope = gyroscopes.first(where: { nameStem($0.name) == stem }) {
                return IIOInertialSensors(accelerometer: accelerometer, gyroscope: gyroscope)
            }
        }
        return nil
    }

    /// "iio:device10" after "iio:device9".
    static func deviceNumber(_ entry: String) -> Int { Int(entry.dropFirst("iio:device".count)) ?? Int.max }

    static func hasChannel(_ type: String, at path: String) -> Bool {
        let axes = ["x", "y", "z"]
        let fm = FileManager.default
        return axes.allSatisfy { fm.fileExists(atPath: "\(path)/in_\(type)_\($0)_raw") }
            || [IIOBufferLayout.legacy, .v2].contains { layout in
                axes.allSatisfy { fm.fileExists(atPath: "\(path)/\(layout.scanElements)/in_\(type)_\($0)_en") }
            }
    }

    /// The directory of the device the IIO device belongs to, when its sysfs entry is a symlink (as under a real
    /// `/sys/bus/iio/devices`); nil for a plain directory, whose parent says nothing about the chip.
    static func physicalParent(_ path: String) -> String? {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil else { return nil }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The name without its accelerometer/gyroscope suffix, lowercased.
    static func nameStem(_ name: String) -> String {
        let lower = name.lowercased()
        for suffix in ["_accel", "-accel", "_gyro", "-gyro", "_anglvel"] where lower.hasSuffix(suffix) {
            return String(lower.dropLast(suffix.count))
        }
        return lower
    }
}

/// Scale and offset of one channel type's three axes, read once when a run starts: value = (raw + offset) × scale,
/// m/s² for `accel`, rad/s for `anglvel` (the IIO ABI's units).
struct IIOAxisCalibration: Sendable, Hashable {
    var scale: [Double]
    var offset: [Double]

    static func read(_ device: IIODevice, type: String) throws(IIOError) -> IIOAxisCalibration {
        var scale: [Double] = []
        var offset: [Double] = []
        for axis in ["x", "y", "z"] {
            scale.append(try device.firstNumber("in_\(type)_\(axis)_scale", "in_\(type)_scale") ?? 1)
            offset.append(try device.firstNumber("in_\(type)_\(axis)_offset", "in_\(type)_offset") ?? 0)
        }
        return IIOAxisCalibration(scale: scale, offset: offset)
    }

    func apply(_ raw: [Int64]) -> DeviceVector {
        DeviceVector(
            x: (Double(raw[0]) + offset[0]) * scale[0], y: (Double(raw[1]) + offset[1]) * scale[1],
            z: (Double(raw[2]) + offset[2]) * scale[2])
    }
}

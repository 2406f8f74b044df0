import Foundation
import CoreLocationEngine

/// One Industrial I/O device under sysfs (`<root>/bus/iio/devices/iio:deviceN`), read through its
/// per-channel files: `in_<type>_<axis>_raw`, the scale `in_<type>_<axis>_scale` or the shared
/// `in_<type>_scale`, and the optional offset likewise (Linux `Documentation/ABI/testing/sysfs-bus-iio`).
/// value = (raw + offset) × scale, in Gauss for magnetometers and m/s² for accelerometers.
public struct IIODevice: Sendable, Hashable {
    /// The device directory.
    public let path: String
    /// The `name` attribute (the driver's name, e.g. "ak8975"), or the directory name.
    public let name: String

    public init(path: String) {
        self.path = path
        let nameFile = (try? String(contentsOfFile: path + "/name", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        self.name = nameFile.flatMap { $0.isEmpty ? nil : $0 } ?? (path as NSString).lastPathComponent
    }

    /// The directory name, e.g. "iio:device0".
    public var deviceName: String { (path as NSString).lastPathComponent }

    /// The IIO devices under a sysfs root (normally "/sys") that have all three channels of `type`
    /// ("magn" or "accel"), sorted by directory name.
    public static func devices(withChannel type: String, sysfsRoot: String = "/sys") -> [IIODevice] {
        let directory = sysfsRoot + "/bus/iio/devices"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("iio:device") }.sorted().compactMap { entry in
            let path = directory + "/" + entry
            let complete = ["x", "y", "z"].allSatisfy {
                FileManager.default.fileExists(atPath: "\(path)/in_\(type)_\($0)_raw")
            }
            return complete ? IIODevice(path: path) : nil
        }
    }

    /// A reading of the three axes of a channel type.
    public struct Reading: Sendable, Hashable {
        /// (raw + offset) × scale per axis, in the channel's IIO unit.
        public var value: DeviceVector
        /// An axis reads the extreme of a signed 16-bit converter (or beyond): the sensor is saturated.
        public var isSaturated: Bool
    }

    /// Reads x, y, z of `type`. Throws `IIOError` when a file is missing or unreadable (device gone) or
    /// holds no number.
    public func read(_ type: String) throws(IIOError) -> Reading {
        var values = [0.0, 0.0, 0.0]
        var saturated = false
        for (index, axis) in ["x", "y", "z"].enumerated() {
            let raw = try number("in_\(type)_\(axis)_raw")
            let scale = try firstNumber("in_\(type)_\(axis)_scale", "in_\(type)_scale") ?? 1
            let offset = try firstNumber("in_\(type)_\(axis)_offset", "in_\(type)_offset") ?? 0
            if raw >= 32767 || raw <= -32768 { saturated = true }
            values[index] = (raw + offset) * scale
        }
        return Reading(value: DeviceVector(x: values[0], y: values[1], z: values[2]), isSaturated: saturated)
    }

    /// The per-axis attribute, else the shared one, else nil.
    func firstNumber(_ perAxis: String, _ shared: String) throws(IIOError) -> Double? {
        if let value = try optionalNumber(perAxis) { return value }
        return try optionalNumber(shared)
    }

    func number(_ file: String) throws(IIOError) -> Double {
        guard let value = try optionalNumber(file) else {
            throw IIOError(message: "\(deviceName): \(file) is missing")
        }
        return value
    }

    private func optionalNumber(_ file: String) throws(IIOError) -> Double? {
        let full = path + "/" + file
        guard FileManager.default.fileExists(atPath: full) else {
            if !FileManager.default.fileExists(atPath: path) {
                throw IIOError(message: "\(deviceName) disappeared")
            }
            return nil
        }
        guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
            throw IIOError(message: "\(deviceName): cannot read \(file)")
        }
        guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), value.isFinite else {
            throw IIOError(message: "\(deviceName): \(file) does not hold a number")
        }
        return value
    }
}

/// Reading an IIO device failed; `message` names the device and file.
public struct IIOError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

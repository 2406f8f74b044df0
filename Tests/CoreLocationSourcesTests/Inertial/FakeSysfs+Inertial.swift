import CoreLocationEngine
import CoreLocationGPSDTestSupport
import Foundation
import Synchronization

@testable import CoreLocationSources

extension FakeSysfs {
    /// Writes `file` (a path under the device, e.g. "scan_elements/in_accel_x_en"), making its directories.
    func writeNested(_ index: Int, _ file: String, _ value: String) throws {
        let full = devicePath(index) + "/" + file
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: full))
    }

    /// A trigger registered by a driver: `<root>/bus/iio/devices/trigger<index>/name`.
    func writeTrigger(_ index: Int, name: String) throws {
        let directory = root + "/bus/iio/devices/trigger\(index)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data((name + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/name"))
    }

    /// A scan element: `_en` (off, as the kernel starts), `_index`, `_type`.
    func writeScanElement(_ index: Int, _ channel: String, index scanIndex: Int, type: String) throws {
        try writeNested(index, "scan_elements/\(channel)_en", "0")
        try writeNested(index, "scan_elements/\(channel)_index", String(scanIndex))
        try writeNested(index, "scan_elements/\(channel)_type", type)
    }

    /// The three `_raw` files of a channel type.
    func writeRaw(_ index: Int, type: String, _ raw: (Int, Int, Int)) throws {
        try write(index, "in_\(type)_x_raw", String(raw.0))
        try write(index, "in_\(type)_y_raw", String(raw.1))
        try write(index, "in_\(type)_z_raw", String(raw.2))
    }

    /// The content of a device's attribute, trimmed.
    func read(_ index: Int, _ file: String) -> String? {
        (try? String(contentsOfFile: devicePath(index) + "/" + file, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A directory standing in for /dev: regular files named `iio:deviceN` that a test appends buffer bytes to, as the
/// kernel makes them readable.
final class FakeDev: Sendable {
    private let directory: ScratchDirectory
    var root: String { directory.url.path }

    init() throws { directory = try ScratchDirectory("fake-dev") }

    func node(_ index: Int) -> String { root + "/iio:device\(index)" }

    /// Creates (or empties) the node.
    func create(_ index: Int) throws { try Data().write(to: URL(fileURLWithPath: node(index))) }

    func append(_ index: Int, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: node(index)))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }
}

/// Little- and big-endian bytes of test values.
func le16(_ value: Int) -> [UInt8] {
    let bits = UInt16(truncatingIfNeeded: value)
    return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
}

func be16(_ value: Int) -> [UInt8] { Array(le16(value).reversed()) }

func le64(_ value: Int64) -> [UInt8] {
    let bits = UInt64(bitPattern: value)
    return (0..<8).map { UInt8((bits >> (8 * UInt64($0))) & 0xFF) }
}

/// Collects an inertial source's events, from any thread.
final class InertialRecorder: Sendable {
    private let storage = Mutex<[InertialSourceEvent]>([])
    var events: [InertialSourceEvent] { storage.withLock { $0 } }
    var samples: [InertialSample] {
        events.flatMap { event -> [InertialSample] in
            if case .samples(let samples) = event { return samples }
            return []
        }
    }
    var failures: [String] {
        events.compactMap { event in
            if case .unavailable(let reason) = event { return reason }
            return nil
        }
    }
    var handler: @Sendable (InertialSourceEvent) -> Void { { [self] event in storage.withLock { $0.append(event) } } }
}

import Foundation

/// Keeps one `MagnetometerCalibration` per device as a JSON file:
/// `$XDG_DATA_HOME/corelocation/magnetometer/<key>.json` (default `~/.local/share/...`), mode 0600,
/// where the key is the driver name and device directory, e.g. `ak8975-iio_device0`.
///
/// A JSON file rather than a database table: the calibration belongs to a sensor, not to a user's
/// location data, it is a handful of numbers, and the magnetometer source must not depend on storage.
public struct MagnetometerCalibrationStore: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The default directory for an environment (`XDG_DATA_HOME`, else `HOME/.local/share`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/corelocation/magnetometer"
    }

    public func path(for key: String) -> String {
        let safe = String(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        return directory + "/" + safe + ".json"
    }

    public func load(key: String) -> MagnetometerCalibration? {
        guard let data = FileManager.default.contents(atPath: path(for: key)) else { return nil }
        return try? JSONDecoder().decode(MagnetometerCalibration.self, from: data)
    }

    /// Writes atomically with mode 0600.
    public func save(_ calibration: MagnetometerCalibration, key: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(calibration)
        let target = path(for: key)
        let temporary = target + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        guard rename(temporary, target) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

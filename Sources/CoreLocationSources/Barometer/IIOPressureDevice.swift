import Foundation

/// A Linux IIO pressure sensor under sysfs, found by channel type (`in_pressure[N]_input` or
/// `in_pressure[N]_raw`; Linux `Documentation/ABI/testing/sysfs-bus-iio`, "in_pressureY_raw",
/// "in_pressure_input": "Units after application of scale and offset are kilopascal").
///
/// Layouts of the drivers it was written against (fake trees in `Tests/…/Barometer`):
/// | chip (driver, `name`)                     | pressure files                                   |
/// |-------------------------------------------|--------------------------------------------------|
/// | BMP280/BME280 (`bmp280`, `bme280`)         | `in_pressure_input` (kPa), `in_pressure_oversampling_ratio`, `in_temp_input` |
/// | LPS22HB (`st_pressure`, `lps22hb`)         | `in_pressure_raw` + `in_pressure_scale` (kPa/LSB), `sampling_frequency` |
/// | DPS310 (`dps310`)                          | `in_pressure_input` (kPa), `in_pressure_sampling_frequency` |
/// | MS5611 (`ms5611`)                          | `in_pressure_input` (kPa) and a `in_pressure_scale` that applies to buffered raw data only |
///
/// `_input` wins when both exist: it is already in kilopascals (the ABI's "processed" value); a
/// scale beside it belongs to the buffered raw samples.
public struct IIOPressureDevice: Sendable, Hashable {
    public let device: IIODevice
    /// The channel's file prefix: "in_pressure" or "in_pressure0".
    public let channel: String

    /// The device's `name` attribute (driver's chip name).
    public var name: String { device.name }
    public var deviceName: String { device.deviceName }
    /// "iio:device0 (bmp280)".
    public var label: String { "\(device.deviceName) (\(device.name))" }

    public init(device: IIODevice, channel: String) {
        self.device = device
        self.channel = channel
    }

    /// The pressure sensors under a sysfs root (normally "/sys"), sorted by directory name; one per
    /// device (its first pressure channel).
    public static func devices(sysfsRoot: String = "/sys") -> [IIOPressureDevice] {
        let directory = sysfsRoot + "/bus/iio/devices"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("iio:device") }.sorted().compactMap { entry in
            let path = directory + "/" + entry
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            let channels = files.compactMap(Self.pressureChannel).sorted()
            guard let channel = channels.first else { return nil }
            return IIOPressureDevice(device: IIODevice(path: path), channel: channel)
        }
    }

    /// "in_pressure_input" → "in_pressure"; "in_pressure1_raw" → "in_pressure1"; anything else nil.
    static func pressureChannel(_ file: String) -> String? {
        for suffix in ["_input", "_raw"] where file.hasSuffix(suffix) {
            let channel = String(file.dropLast(suffix.count))
            guard let index = channel.strip(prefix: "in_pressure"), index.allSatisfy(\.isNumber) else { continue }
            return channel
        }
        return nil
    }

    /// The pressure now, hectopascals: `_input` × 10, else (`_raw` + `_offset`) × `_scale` × 10 (the
    /// per-channel attribute, else the shared `in_pressure_*` one; offset 0 and scale 1 when absent).
    /// Throws `IIOError` when the device is gone or a file holds no number.
    public func readHectopascals() throws(IIOError) -> Double {
        if let input = try device.sysfsNumber(channel + "_input") { return input * 10 }
        let raw = try device.requiredSysfsNumber(channel + "_raw")
        let scale = try attribute("scale") ?? 1
        let offset = try attribute("offset") ?? 0
        return (raw + offset) * scale * 10
    }

    /// The channel's attribute (`in_pressure0_scale`), else the shared one (`in_pressure_scale`).
    private func attribute(_ suffix: String) throws(IIOError) -> Double? {
        if let value = try device.sysfsNumber("\(channel)_\(suffix)") { return value }
        return try device.sysfsNumber("in_pressure_\(suffix)")
    }

    /// The range, hectopascals, the chip is specified for (datasheets), with 5 % of margin; a reading
    /// outside is a fault. Unknown chips get 100–1200 hPa (sea level to about 16 km).
    public var range: ClosedRange<Double> { Self.range(chip: device.name) }

    public static func range(chip: String) -> ClosedRange<Double> {
        let name = chip.lowercased()
        let specified: ClosedRange<Double>
        if name.hasPrefix("bmp") || name.hasPrefix("bme") {
            specified = 300...1100  // Bosch BMP280/BME280/BMP380 datasheets: 300…1100 hPa
        } else if name.hasPrefix("lps") {
            specified = 260...1260  // ST LPS22HB/LPS22HH/LPS25H: 260…1260 hPa
        } else if name.hasPrefix("dps310") {
            specified = 300...1200  // Infineon DPS310: 300…1200 hPa
        } else if name.hasPrefix("ms56") {
            specified = 10...1200  // TE MS5611/MS5607: 10…1200 mbar
        } else {
            specified = 100...1200
        }
        return specified.lowerBound * 0.95...specified.upperBound * 1.05
    }
}

extension IIODevice {
    func sysfsNumber(_ file: String) throws(IIOError) -> Double? {
        let full = path + "/" + file
        guard FileManager.default.fileExists(atPath: full) else {
            if !FileManager.default.fileExists(atPath: path) { throw IIOError(message: "\(deviceName) disappeared") }
            return nil
        }
        guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
            throw IIOError(message: "\(deviceName): cannot read \(file)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // "nan" parses as a Double; it is passed on so that the pressure check names it.
        guard let value = Double(trimmed) else {
            throw IIOError(message: "\(deviceName): \(file) does not hold a number ('\(trimmed.prefix(20))')")
        }
        return value
    }

    func requiredSysfsNumber(_ file: String) throws(IIOError) -> Double {
        guard let value = try sysfsNumber(file) else { throw IIOError(message: "\(deviceName): \(file) is missing") }
        return value
    }
}

extension String {
    fileprivate func strip(prefix: String) -> Substring? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}

import Foundation

/// One line of a recorded-advertisement file (JSON lines; docs/beacons.md):
///
///     {"t": 0.10, "address": "C0:FF:EE:00:00:01", "rssi": -61,
///      "manufacturer": {"004c": "0215…"}, "service": {"feaa": "00f8…"}}
///
/// `t` is seconds from the start of the recording (non-decreasing); `manufacturer` keys are 4 hex digits of
/// the company ID, values the hex bytes after the company ID (as BlueZ's ManufacturerData); `service` keys are
/// 16-bit (4 hex digits) or 128-bit service UUIDs, values hex. Both maps are optional; `#` lines and blank
/// lines are skipped.
public struct RecordedAdvert: Sendable, Hashable, Codable {
    public var t: Double
    public var address: String
    public var rssi: Int
    public var manufacturer: [String: String]?
    public var service: [String: String]?

    public init(t: Double, address: String, rssi: Int, manufacturer: [String: String]? = nil,
        service: [String: String]? = nil)
    {
        self.t = t
        self.address = address
        self.rssi = rssi
        self.manufacturer = manufacturer
        self.service = service
    }

    /// The advertisement; throws when a key or a value is not hexadecimal.
    public func advertisement() throws -> BeaconAdvertisement {
        var manufacturerData: [UInt16: [UInt8]] = [:]
        for (key, value) in manufacturer ?? [:] {
            guard key.count == 4, let company = UInt16(key, radix: 16), let bytes = [UInt8](hex: value) else {
                throw RecordedAdvertError("manufacturer data \(key): \(value) is not hex")
            }
            manufacturerData[company] = bytes
        }
        var serviceData: [String: [UInt8]] = [:]
        for (key, value) in service ?? [:] {
            guard let bytes = [UInt8](hex: value) else { throw RecordedAdvertError("service data \(key) is not hex") }
            let uuid = key.count == 4 ? "0000\(key.lowercased())-0000-1000-8000-00805f9b34fb" : key.lowercased()
            serviceData[uuid] = bytes
        }
        return BeaconAdvertisement(
            address: address, manufacturerData: manufacturerData, serviceData: serviceData, rssi: rssi)
    }

    /// Every advert in a JSON-lines text; the error names the line.
    public static func parse(_ text: String) throws -> [RecordedAdvert] {
        var adverts: [RecordedAdvert] = []
        let decoder = JSONDecoder()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let advert: RecordedAdvert
            do {
                advert = try decoder.decode(RecordedAdvert.self, from: Data(trimmed.utf8))
            } catch {
                throw RecordedAdvertError("line \(index + 1): not an advert (\(error))")
            }
            guard advert.t.isFinite, advert.t >= (adverts.last?.t ?? 0) else {
                throw RecordedAdvertError("line \(index + 1): t must be finite and non-decreasing")
            }
            do {
                _ = try advert.advertisement()
            } catch let error as RecordedAdvertError {
                throw RecordedAdvertError("line \(index + 1): \(error.message)")
            }
            adverts.append(advert)
        }
        return adverts
    }
}

public struct RecordedAdvertError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import Foundation

/// One beacon advertisement's payload, decoded: which format, whose identity, and the calibrated power.
///
/// Decoders take what BlueZ gives per advertisement — manufacturer data keyed by company identifier (the bytes
/// *after* the 2-byte company ID) and service data keyed by service UUID — and answer nil for anything that is
/// not exactly their frame: another company, another beacon code, a truncated or oversized payload. They never
/// trap on any input (fuzzed: `CoreLocationFuzzBeaconFrames`).
public struct BeaconFrame: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable, Codable {
        case iBeacon, altBeacon, eddystoneUID
    }

    public var format: Format
    public var identity: BeaconIdentity
    /// The received power, dBm, the frame says a receiver sees 1 m away (Eddystone's 0 m value minus 41 dB).
    public var measuredPower: Int

    public init(format: Format, identity: BeaconIdentity, measuredPower: Int) {
        self.format = format
        self.identity = identity
        self.measuredPower = measuredPower
    }

    /// Apple's Bluetooth SIG company identifier.
    public static let appleCompany: UInt16 = 0x004C
    /// The Eddystone service (16-bit UUID 0xFEAA) as BlueZ spells it in ServiceData keys.
    public static let eddystoneService = "0000feaa-0000-1000-8000-00805f9b34fb"
    /// Eddystone: "41 dBm is the signal loss that occurs over 1 meter" (Eddystone protocol specification,
    /// github.com/google/eddystone, eddystone-uid: Tx Power).
    public static let eddystoneOneMetreLoss = 41

    /// An iBeacon: company 0x004C, type 0x02, length 0x15, then the UUID (16 bytes), major and minor (big-endian)
    /// and the measured power at 1 m (signed byte) — exactly 23 bytes.
    public static func iBeacon(company: UInt16, data: [UInt8]) -> BeaconFrame? {
        guard company == appleCompany, data.count == 23, data[0] == 0x02, data[1] == 0x15 else { return nil }
        return BeaconFrame(
            format: .iBeacon,
            identity: .uuid(uuid(data, at: 2), major: bigEndian(data, at: 18), minor: bigEndian(data, at: 20)),
            measuredPower: Int(Int8(bitPattern: data[22]))
        )
    }

    /// An AltBeacon (github.com/AltBeacon/spec): any company, beacon code 0xBE 0xAC, a 20-byte beacon ID (read as
    /// UUID + major + minor), the reference RSSI at 1 m (signed byte) and one reserved byte — exactly 24 bytes.
    public static func altBeacon(company: UInt16, data: [UInt8]) -> BeaconFrame? {
        guard data.count == 24, data[0] == 0xBE, data[1] == 0xAC else { return nil }
        return BeaconFrame(
            format: .altBeacon,
            identity: .uuid(uuid(data, at: 2), major: bigEndian(data, at: 18), minor: bigEndian(data, at: 20)),
            measuredPower: Int(Int8(bitPattern: data[22]))
        )
    }

    /// An Eddystone-UID frame (service data of 0xFEAA): frame type 0x00, tx power at 0 m (signed byte), a 10-byte
    /// namespace and a 6-byte instance, then two reserved bytes that many beacons omit — 18 or 20 bytes.
    public static func eddystoneUID(service: String, data: [UInt8]) -> BeaconFrame? {
        guard service.lowercased() == eddystoneService || service.lowercased() == "feaa" else { return nil }
        guard data.count == 18 || data.count == 20, data[0] == 0x00 else { return nil }
        return BeaconFrame(
            format: .eddystoneUID,
            identity: .eddystone(namespace: Array(data[2..<12]), instance: Array(data[12..<18])),
            measuredPower: Int(Int8(bitPattern: data[1])) - eddystoneOneMetreLoss
        )
    }

    /// Every beacon frame in one advertisement's manufacturer and service data (usually none or one).
    public static func frames(manufacturerData: [UInt16: [UInt8]], serviceData: [String: [UInt8]]) -> [BeaconFrame] {
        var frames: [BeaconFrame] = []
        for (company, data) in manufacturerData.sorted(by: { $0.key < $1.key }) {
            if let frame = iBeacon(company: company, data: data) ?? altBeacon(company: company, data: data) {
                frames.append(frame)
            }
        }
        for (service, data) in serviceData.sorted(by: { $0.key < $1.key }) {
            if let frame = eddystoneUID(service: service, data: data) { frames.append(frame) }
        }
        return frames
    }

    private static func bigEndian(_ data: [UInt8], at index: Int) -> UInt16 {
        UInt16(data[index]) << 8 | UInt16(data[index + 1])
    }

    private static func uuid(_ data: [UInt8], at index: Int) -> UUID {
        let b = Array(data[index..<(index + 16)])
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
            b[14], b[15]))
    }
}

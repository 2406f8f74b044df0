import Foundation

/// Who a beacon is, whatever address it advertised from (addresses rotate; identities do not).
///
/// iBeacon and AltBeacon frames carry a 16-byte UUID, a major and a minor (AltBeacon's 20-byte beacon ID read as
/// UUID + major + minor, the split every AltBeacon library uses); Eddystone-UID carries a 10-byte namespace and a
/// 6-byte instance, which Apple's `CLBeacon` cannot express.
public enum BeaconIdentity: Sendable, Hashable, CustomStringConvertible {
    case uuid(UUID, major: UInt16, minor: UInt16)
    case eddystone(namespace: [UInt8], instance: [UInt8])

    public var description: String {
        switch self {
        case .uuid(let uuid, let major, let minor): "\(uuid.uuidString) \(major) \(minor)"
        case .eddystone(let namespace, let instance): "eddystone \(namespace.hex) \(instance.hex)"
        }
    }
}

extension [UInt8] {
    /// Lower-case hexadecimal, two digits per byte.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }

    /// Bytes from hexadecimal text (either case, even length); nil for anything else.
    public init?(hex text: some StringProtocol) {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}

import CoreLocationNetwork

/// ModemManager's `MMModemLocationSource` flags (`Modem.Location` `Capabilities`, `Enabled`, `Setup`), see
/// https://www.freedesktop.org/software/ModemManager/api/latest/ModemManager-Flags-and-Enumerations.html
public struct ModemLocationCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI`: the serving cell, `"MCC,MNC,LAC,CI,TAC"`.
    public static let threeGPPCell = Self(rawValue: 1 << 0)
    /// `GPS_RAW`: the GNSS fix as a dictionary (latitude, longitude, altitude, utc-time).
    public static let gpsRaw = Self(rawValue: 1 << 1)
    /// `GPS_NMEA`: the GNSS engine's NMEA traces.
    public static let gpsNMEA = Self(rawValue: 1 << 2)
    /// `CDMA_BS`: the CDMA base station's position.
    public static let cdmaBaseStation = Self(rawValue: 1 << 3)
    /// `GPS_UNMANAGED`: GNSS started, NMEA on a separate port that ModemManager does not read.
    public static let gpsUnmanaged = Self(rawValue: 1 << 4)
    public static let agpsMSA = Self(rawValue: 1 << 5)
    public static let agpsMSB = Self(rawValue: 1 << 6)

    public var description: String {
        let names: [(Self, String)] = [
            (.threeGPPCell, "3gpp-lac-ci"), (.gpsRaw, "gps-raw"), (.gpsNMEA, "gps-nmea"),
            (.cdmaBaseStation, "cdma-bs"), (.gpsUnmanaged, "gps-unmanaged"), (.agpsMSA, "agps-msa"),
            (.agpsMSB, "agps-msb"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: ",")
    }
}

/// ModemManager's `MMModemState`.
public struct ModemState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let failed = Self(rawValue: -1)
    public static let unknown = Self(rawValue: 0)
    public static let locked = Self(rawValue: 2)
    public static let disabled = Self(rawValue: 3)
    public static let enabled = Self(rawValue: 6)
    public static let registered = Self(rawValue: 8)
    public static let connected = Self(rawValue: 11)

    /// Enabled or further (searching, registered, connecting, connected…): location can be set up.
    public var isUsable: Bool { rawValue >= Self.enabled.rawValue }

    public var description: String {
        switch rawValue {
        case -1: "failed"
        case 0: "unknown"
        case 1: "initializing"
        case 2: "locked"
        case 3: "disabled"
        case 4: "disabling"
        case 5: "enabling"
        case 6: "enabled"
        case 7: "searching"
        case 8: "registered"
        case 9: "disconnecting"
        case 10: "connecting"
        case 11: "connected"
        default: "state \(rawValue)"
        }
    }
}

/// The radio of the serving cell from ModemManager's `AccessTechnologies` (`MMModemAccessTechnology` flags).
public enum CellRadioFromAccessTechnology {
    public static func radio(_ flags: UInt32) -> CellRadio? {
        if flags & (1 << 15) != 0 { return .nr }
        if flags & ((1 << 14) | (1 << 16) | (1 << 17)) != 0 { return .lte }
        if flags & ((1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9)) != 0 { return .umts }
        if flags & ((1 << 1) | (1 << 2) | (1 << 3) | (1 << 4)) != 0 { return .gsm }
        if flags & ((1 << 10) | (1 << 11) | (1 << 12) | (1 << 13)) != 0 { return .cdma }
        return nil
    }
}

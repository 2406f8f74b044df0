/// One decoded NMEA 0183 sentence of a kind the epoch assembler uses.
///
/// Field layouts follow NMEA 0183 from 2.x to 4.11; fields a version lacks are nil (never NaN).
/// Units are the sentence's own except where the name says otherwise: angles in degrees, time of day
/// in seconds after UTC midnight, speeds in the unit named.
public struct NMEASentence: Sendable, Hashable {
    public var talker: NMEATalker
    public var body: Body

    public enum Body: Sendable, Hashable {
        case gga(NMEAGGA)
        case rmc(NMEARMC)
        case gll(NMEAGLL)
        case vtg(NMEAVTG)
        case gsa(NMEAGSA)
        case gsv(NMEAGSV)
        case gst(NMEAGST)
        case gns(NMEAGNS)
        case zda(NMEAZDA)
        case hdt(NMEAHDT)
        case hdg(NMEAHDG)
        case ths(NMEATHS)
    }

    public init(talker: NMEATalker, body: Body) {
        self.talker = talker
        self.body = body
    }

    /// The UTC time of day the sentence carries, if its type has one.
    public var timeOfDay: Double? {
        switch body {
        case .gga(let s): s.timeOfDay
        case .rmc(let s): s.timeOfDay
        case .gll(let s): s.timeOfDay
        case .gst(let s): s.timeOfDay
        case .gns(let s): s.timeOfDay
        case .zda(let s): s.timeOfDay
        case .vtg, .gsa, .gsv, .hdt, .hdg, .ths: nil
        }
    }
}

/// The two-letter talker identifier (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `GI`, `SD`, …).
public struct NMEATalker: Sendable, Hashable, CustomStringConvertible {
    public var first: UInt8
    public var second: UInt8

    public init(first: UInt8, second: UInt8) {
        self.first = first
        self.second = second
    }

    public init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 2, "a talker is two letters")
        self.first = text.utf8Start[0]
        self.second = text.utf8Start[1]
    }

    public var description: String { String(decoding: [first, second], as: UTF8.self) }

    /// The constellation the talker stands for; nil for `GN` (combined) and non-GNSS talkers.
    public var system: GNSSSystem? {
        switch (first, second) {
        case (UInt8(ascii: "G"), UInt8(ascii: "P")): .gps
        case (UInt8(ascii: "G"), UInt8(ascii: "L")): .glonass
        case (UInt8(ascii: "G"), UInt8(ascii: "A")): .galileo
        case (UInt8(ascii: "G"), UInt8(ascii: "B")), (UInt8(ascii: "B"), UInt8(ascii: "D")): .beidou
        case (UInt8(ascii: "G"), UInt8(ascii: "Q")), (UInt8(ascii: "Q"), UInt8(ascii: "Z")): .qzss
        case (UInt8(ascii: "G"), UInt8(ascii: "I")): .navic
        default: nil
        }
    }
}

/// A satellite navigation system, with the NMEA 4.11 system ID (GSA field 18, GSV signal tables).
public enum GNSSSystem: Int, Sendable, Hashable, CaseIterable {
    case gps = 1
    case glonass = 2
    case galileo = 3
    case beidou = 4
    case qzss = 5
    case navic = 6
}

/// The positioning mode letter of RMC, GLL, VTG (NMEA 2.3+) and GNS.
public enum NMEAModeIndicator: UInt8, Sendable, Hashable {
    case autonomous = 65  // A
    case differential = 68  // D
    case estimated = 69  // E (dead reckoning)
    case rtkFloat = 70  // F
    case manual = 77  // M
    case notValid = 78  // N
    case precise = 80  // P
    case rtkFixed = 82  // R
    case simulator = 83  // S

    /// True for modes that carry a measured position.
    public var isValidFix: Bool {
        switch self {
        case .autonomous, .differential, .rtkFloat, .precise, .rtkFixed, .estimated: true
        case .manual, .notValid, .simulator: false
        }
    }
}

/// A calendar date in UTC as a sentence gives it (RMC: two-digit year, already widened; ZDA: four).
public struct NMEADate: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing

@testable import LocationdCommand

/// `CFormat` against glibc's own `printf` (through `String(format:)`, which hands `%f` to it): the front door must
/// print what gpsd prints, digit for digit, for every value a fix can hold.
@Suite struct CFormatTests {
    static func printf(_ value: Double, _ digits: Int, width: Int = 0) -> String {
        String(format: "%0\(width).\(digits)f", value)
    }

    /// Exact binary ties round to even, as glibc does, and values a hair off a tie round to the nearer side.
    @Test func tiesAndNearTies() {
        let cases: [(Double, Int, String)] = [
            (0.125, 2, "0.12"), (0.375, 2, "0.38"), (2.5, 0, "2"), (3.5, 0, "4"), (-0.5, 0, "-0"),
            (0.5, 0, "0"), (1.5, 0, "2"), (0.0625, 3, "0.062"), (-0.0, 3, "-0.000"), (0.0, 0, "0"),
            (1.005, 2, "1.00"),  // 1.005 is 1.00499999999999989… in binary
            (-0.0001, 3, "-0.000"), (999.9995, 3, "1000.000"), (0.000_000_000_5, 9, "0.000000001"),
            (52.520_123_456_5, 9, "52.520123457"), (4_503_599_627_370_497, 2, "4503599627370497.00"),
            (1e300, 1, String(format: "%.1f", 1e300)), (.leastNonzeroMagnitude, 20, "0.00000000000000000000"),
        ]
        for (value, digits, expected) in cases {
            #expect(CFormat.fixed(value, digits) == expected, "\(value) at \(digits)")
            #expect(CFormat.fixed(value, digits) == Self.printf(value, digits), "\(value) at \(digits) vs printf")
        }
    }

    /// Random values over the ranges a TPV, a SKY and a made sentence carry, and over every magnitude, at every
    /// precision the front door uses and more: identical to printf.
    @Test func randomValuesMatchPrintf() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [String] = []
        for round in 0..<60_000 {
            let value: Double
            switch round % 4 {
            case 0: value = Double.random(in: -180...180, using: &generator)
            case 1: value = Double.random(in: -1000...10000, using: &generator).rounded() / 1000  // decimal ties
            case 2: value = Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &generator))
            default: value = Double.random(in: 0..<1, using: &generator) * 0x1p-20
            }
            let digits = [0, 1, 2, 3, 4, 7, 9, 12, 17, 20][round % 10]
            let ours = CFormat.fixed(value, digits)
            if ours != Self.printf(value, digits) { mismatches.append("\(value) %.\(digits)f: \(ours)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func paddingAndIntegers() {
        #expect(CFormat.fixed(5.123_456_78, 7, width: 10) == Self.printf(5.123_456_78, 7, width: 10))
        #expect(CFormat.fixed(5.123_456_78, 7, width: 10) == "05.1234568")
        #expect(CFormat.fixed(-5.1, 1, width: 6) == "-005.1")
        #expect(CFormat.fixed(-5.1, 1, width: 6) == Self.printf(-5.1, 1, width: 6))
        #expect(CFormat.padded(7, 3) == "007")
        #expect(CFormat.padded(2026, 2) == "2026")
        #expect((0...255).allSatisfy { CFormat.hex(UInt8($0), 2, uppercase: true) == String(format: "%02X", $0) })
        #expect(CFormat.hex(UInt32(0x1f), 4) == String(format: "%04x", 0x1f))
        #expect(CFormat.fixed(.nan, 3) == "nan")
        #expect(CFormat.fixed(-.infinity, 3) == "-inf")
    }

    /// `GPSDReport.utc` (calendar arithmetic) against glibc's `gmtime_r` over random moments of years 1…9999, the
    /// days around leap days and century years, and times before 1970.
    @Test func utcFieldsMatchGmtime() {
        var generator = SystemRandomNumberGenerator()
        var moments: [Double] = (0..<20_000).map { _ in Double.random(in: -62_135_596_800..<253_402_300_800, using: &generator) }
        for year in [1900, 2000, 2024, 2100, 1969, 1600] {
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = 1
            parts.tm_mday = 27
            let start = Double(timegm(&parts))
            moments += (0..<96).map { start + Double($0) * 3600 + 0.999 }
        }
        moments += [-0.0005, 0, 1_800_000_000.1, -1, 951_782_400]
        var mismatches: [String] = []
        for requested in moments {
            // The moment a Date holds (it counts from 2001: not every Unix time survives the round trip exactly).
            let moment = Date(timeIntervalSince1970: requested).timeIntervalSince1970
            let milliseconds = (moment * 1000).rounded(.down)
            var whole = time_t((milliseconds / 1000).rounded(.down))
            var parts = tm()
            gmtime_r(&whole, &parts)
            let expected = GPSDReport.UTC(
                year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
                millisecond: Int(milliseconds - Double(whole) * 1000))
            let ours = GPSDReport.utc(Date(timeIntervalSince1970: moment))
            if ours != expected { mismatches.append("\(moment): \(ours) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        #expect(GPSDReport.time(Date(timeIntervalSince1970: 1_710_504_002)) == "2024-03-15T12:00:02.000Z")
    }
}

import CoreLocationGeodesy
import Foundation

/// A location's timestamp as `track` prints it: `2024-01-01T12:34:56.789Z` (UTC, milliseconds
/// truncated), the text of `LocationWriter.timestampFormat`, written straight into bytes.
///
/// Foundation's `ISO8601FormatStyle` costs a few microseconds a date (calendar arithmetic, a
/// formatter per call); at tens of thousands of fixes a second it was one of the largest costs of a
/// replay printed as CSV. The civil date comes from the day number (H. Hinnant's `civil_from_days`,
/// proleptic Gregorian, as Foundation's ISO 8601 calendar), the milliseconds are the fraction of the
/// second rounded down, as Foundation does (`ReplayTests.csvTimestampsMatchFoundation` compares).
enum TimestampText {
    /// Bytes of one timestamp.
    static let length = 24

    /// Appends `date`'s text to `bytes`. Years outside 0...9999 fall back to Foundation.
    static func append(_ date: Date, to bytes: inout [UInt8]) {
        let time = date.timeIntervalSince1970
        let whole = time.rounded(.down)
        guard whole.isFinite, abs(whole) < 2.5e11 else {
            bytes.append(contentsOf: date.formatted(LocationWriter.timestampFormat).utf8)
            return
        }
        let milliseconds = min(max(Int(((time - whole) * 1_000).rounded(.down)), 0), 999)
        let seconds = Int(whole)
        var days = seconds / 86_400
        var inDay = seconds % 86_400
        if inDay < 0 {
            inDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilCalendar.date(days: days)
        guard (0...9999).contains(year) else {
            bytes.append(contentsOf: date.formatted(LocationWriter.timestampFormat).utf8)
            return
        }
        append(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(inDay / 3_600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(inDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(inDay % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        append(milliseconds, width: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` (≥ 0) in decimal, zero-padded to `width` digits.
    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var rest = value
        var index = start + width - 1
        while index >= start {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }
}

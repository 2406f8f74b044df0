import CoreLocationGeodesy
import Foundation

extension GPXParser {
    /// Parses an XML Schema `dateTime` as GPX uses it: `YYYY-MM-DDThh:mm:ss`, optional fraction of
    /// a second (any number of digits), optional zone `Z`, `±hh:mm`, `±hhmm` or `±hh`. A time
    /// without a zone is taken as UTC (GPX requires UTC; some writers omit the `Z`). A space instead
    /// of `T` is accepted. Leap second 60 is accepted and lands on the next minute's second 0.
    /// Returns nil for anything else, including impossible dates (Feb 30, hour 25).
    static func parseTime(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        guard
            let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            var scale = 0.1
            var any = false
            while let digit = scanner.digit() {
                fraction += Double(digit) * scale
                scale /= 10
                any = true
            }
            guard any else { return nil }
        }
        var zoneSeconds = 0
        if scanner.skip("Z") || scanner.skip("z") {
        } else if let sign = scanner.sign() {
            guard let zoneHour = scanner.number(digits: 2), zoneHour <= 14 else { return nil }
            var zoneMinute = 0
            if scanner.skip(":") {
                guard let value = scanner.number(digits: 2) else { return nil }
                zoneMinute = value
            } else if let value = scanner.number(digits: 2) {
                zoneMinute = value
            }
            guard zoneMinute < 60 else { return nil }
            zoneSeconds = sign * (zoneHour * 3600 + zoneMinute * 60)
        }
        guard scanner.atEnd,
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - zoneSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

}

/// Reads ASCII digits and punctuation from a byte array.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func digit() -> Int? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - UInt8(ascii: "0"))
    }

    mutating func number(digits count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}

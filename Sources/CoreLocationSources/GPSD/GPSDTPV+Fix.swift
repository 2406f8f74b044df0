import CoreLocationGeodesy
import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

extension GPSDTPV {
    /// Scale from gpsd's horizontal error to CLLocation's radius of uncertainty.
    ///
    /// gpsd derives `eph` from DOP × user-equivalent range error constants that its sources label
    /// "95 % confidence" (gpsd 3.22: `eph = HDOP × 19 m` without DGPS; gpsd_json(5) before 3.20
    /// documented `epx`/`epy`/`epv` as 95 %). CLLocation's `horizontalAccuracy` is the radius of a
    /// 68 % circle. For a circular 2-D normal error, the radius holding probability p is
    /// σ·√(−2 ln(1 − p)): 2.4477σ at 95 %, 1.5096σ at 68 %, so the factor is 1.5096 / 2.4477 = 0.6167.
    public static let horizontalConfidenceScale = (-2 * log(1 - 0.68)).squareRoot() / (-2 * log(1 - 0.95)).squareRoot()

    /// Scale from gpsd's 1-D 95 % errors (`epv`, `eps`, `epd`) to 1σ (68 %): 1 / 1.95996.
    public static let linearConfidenceScale = 1 / 1.959964

    /// The fix this report carries, or nil when it has none (mode 0/1, no position, no time).
    ///
    /// - altitude: `altMSL` (else `alt`); ellipsoidal altitude: `altHAE`. When only one of them is
    ///   present, the other is derived with `geoidSep` (altHAE = altMSL + geoidSep), or without it
    ///   with the EGM96 geoid height at the position.
    /// - accuracies: `eph` (else √(epx² + epy²)) × `horizontalConfidenceScale`; `epv`, `eps`, `epd`
    ///   × `linearConfidenceScale`; −1 where gpsd sends nothing.
    /// - a 2D fix (mode 2) has no valid altitude: vertical accuracy −1.
    public func fix(receivedAt fallback: Date) -> Fix? {
        guard let mode, mode >= 2, let lat, let lon, lat.isFinite, lon.isFinite,
            abs(lat) <= 90, abs(lon) <= 180
        else { return nil }
        let timestamp = time.flatMap(GPSDTime.parse) ?? fallback

        var msl = altMSL ?? alt
        var hae = altHAE
        // Without gpsd's geoidSep, EGM96's separation relates the two altitudes (issue 5).
        let separation = geoidSep ?? geoidHeight(latitude: lat, longitude: lon)
        if separation.isFinite {
            if msl == nil, let hae { msl = hae - separation }
            if hae == nil, let msl { hae = msl + separation }
        }
        let hasAltitude = mode >= 3 && (msl != nil || hae != nil)

        var horizontal = -1.0
        if let eph, eph >= 0 {
            horizontal = eph * Self.horizontalConfidenceScale
        } else if let epx, let epy, epx >= 0, epy >= 0 {
            horizontal = (epx * epx + epy * epy).squareRoot() * Self.horizontalConfidenceScale
        }
        // A position without any error estimate is still a position; CLLocation needs a
        // non-negative radius for it to count, so use gpsd's own no-DOP fallback scale.
        if horizontal < 0 { horizontal = Self.unknownHorizontalAccuracy }

        func scaled(_ value: Double?) -> Double {
            guard let value, value >= 0, value.isFinite else { return -1 }
            return value * Self.linearConfidenceScale
        }
        let speedValue = speed.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        let courseValue = track.flatMap { $0 >= 0 && $0 < 360 ? $0 : nil }
        return Fix(
            latitude: lat,
            longitude: lon,
            altitude: hasAltitude ? (msl ?? hae ?? 0) : 0,
            ellipsoidalAltitude: hasAltitude ? (hae ?? msl ?? 0) : 0,
            horizontalAccuracy: horizontal,
            verticalAccuracy: hasAltitude ? scaled(epv) : -1,
            course: courseValue ?? -1,
            courseAccuracy: courseValue == nil ? -1 : scaled(epd),
            speed: speedValue ?? -1,
            speedAccuracy: speedValue == nil ? -1 : scaled(eps),
            timestamp: timestamp,
            isSimulated: false,
            isFromAccessory: true
        )
    }

    /// The radius reported when gpsd gives a position but no error estimate, metres: gpsd's
    /// no-DGPS UERE (19 m, 95 %) at HDOP 1, scaled to 68 %.
    public static let unknownHorizontalAccuracy = 19 * horizontalConfidenceScale
}

/// gpsd's timestamps: ISO 8601 UTC with an optional fraction ("2024-03-15T12:00:01.000Z").
enum GPSDTime {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes.last == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if bytes[19] == UInt8(ascii: ".") {
            var scale = 0.1
            for index in 20..<(bytes.count - 1) {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                fraction += Double(digit) * scale
                scale /= 10
            }
        } else if bytes.count != 20 {
            return nil
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}

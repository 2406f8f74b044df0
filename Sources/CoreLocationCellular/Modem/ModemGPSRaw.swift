import CoreLocationDBus
import CoreLocationEngine
import CoreLocationGeodesy
import Foundation

/// One `Location[GPS_RAW]` value of a modem turned into a fix (docs/decisions/0035, "GPS_RAW").
///
/// ModemManager builds the dictionary (`a{sv}`) from the modem's latest GGA trace: `"utc-time"` (a string, GGA's
/// `hhmmss.ss` verbatim), `"latitude"` and `"longitude"` (doubles, degrees, south and west negative) are mandatory,
/// `"altitude"` (a double, metres above mean sea level) is optional; an unknown value is `G_MINDOUBLE`. There is no
/// DOP, fix quality or date in it, so:
///
/// - **Accuracy**: horizontal 25 m = HDOP 5 × σ_UERE 5 m (an autonomous fix at the edge of "good" geometry:
///   twice the NMEA decoder's no-DOP assumption, because GPS_RAW also hides the fix quality, and ModemManager
///   passes a dead-reckoned GGA through as it is); vertical 1.5 × that (37.5 m) when there is an altitude, else
///   invalid (−1).
/// - **Date**: the day that puts the time of day nearest to the wall clock (within 12 h: a fix at 23:59:59 read
///   at 00:00:01 is yesterday's), as the NMEA decoder does before it has seen a date.
/// - **Bad input** gives no fix, with the reason: a value that is not `a{sv}`, a missing or mistyped key, the
///   unknown sentinel, NaN or infinity, a latitude beyond ±90 or longitude beyond ±180, exactly 0,0 (what modems
///   report before their first fix), a time that is not `hhmmss[.s…]` within the day. An altitude that is not a
///   finite double between −1 000 m and 50 000 m makes the altitude invalid but keeps the position.
public struct ModemGPSRaw: Sendable, Hashable {
    /// `"utc-time"` as the modem gave it: one fix per new value.
    public var utcTime: String
    public var fix: Fix

    /// Horizontal accuracy given to every GPS_RAW fix, metres (HDOP 5 × σ_UERE 5 m).
    public static let horizontalAccuracy = 25.0
    /// Vertical accuracy when there is an altitude, metres (1.5 × horizontal, as VDOP ≈ 1.5 HDOP).
    public static let verticalAccuracy = 37.5
    /// ModemManager's `MM_LOCATION_*_UNKNOWN` (`G_MINDOUBLE`).
    static let unknown = Double.leastNormalMagnitude
    static let altitudeRange = -1_000.0...50_000.0

    public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Decodes `value` (the `Location` entry for `GPS_RAW`, variant or not) received at `receivedAt`.
    public static func decode(_ value: DBusValue, receivedAt: Date) throws(Rejection) -> ModemGPSRaw {
        guard let dictionary = value.stringKeyed else {
            throw Rejection(description: "GPS_RAW: not a dictionary (a{sv}) but \(value.unwrapped.signature)")
        }
        guard let time = dictionary["utc-time"]?.string else {
            throw Rejection(description: "GPS_RAW: no utc-time string")
        }
        guard let timeOfDay = secondsOfDay(time) else {
            throw Rejection(description: "GPS_RAW: utc-time '\(time.prefix(32))' is not hhmmss.ss")
        }
        let latitude = try coordinate(dictionary, "latitude", limit: 90)
        let longitude = try coordinate(dictionary, "longitude", limit: 180)
        if latitude == 0 && longitude == 0 {
            throw Rejection(description: "GPS_RAW: position 0,0 (no fix yet)")
        }
        var altitude = 0.0
        var ellipsoidal = 0.0
        var vertical = -1.0
        if case .double(let value)? = dictionary["altitude"]?.unwrapped, value != unknown,
            altitudeRange.contains(value)
        {
            altitude = value
            ellipsoidal = value + geoidHeight(latitude: latitude, longitude: longitude)
            vertical = verticalAccuracy
        }
        let fix = Fix(
            latitude: latitude, longitude: longitude, altitude: altitude, ellipsoidalAltitude: ellipsoidal,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: vertical,
            timestamp: date(timeOfDay: timeOfDay, near: receivedAt), isFromAccessory: true)
        return ModemGPSRaw(utcTime: time, fix: fix)
    }

    private static func coordinate(
        _ dictionary: [String: DBusValue], _ key: String, limit: Double
    ) throws(Rejection) -> Double {
        guard let entry = dictionary[key] else { throw Rejection(description: "GPS_RAW: no \(key)") }
        // A double and nothing else (libmm-glib reads these with g_variant_get_double): an integer is a wrong type.
        guard case .double(let value) = entry.unwrapped else {
            throw Rejection(description: "GPS_RAW: \(key) is \(entry.unwrapped.signature), not a double")
        }
        guard value != unknown else { throw Rejection(description: "GPS_RAW: \(key) unknown") }
        guard value.isFinite, abs(value) <= limit else {
            throw Rejection(description: "GPS_RAW: \(key) \(value) out of range")
        }
        return value
    }

    /// `hhmmss` or `hhmmss.s…` → seconds since midnight; nil for anything else (a leap second, 60, is allowed).
    static func secondsOfDay(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6, bytes.count <= 16, bytes[..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var fraction = 0.0
        if bytes.count > 6 {
            let tail = bytes[7...]
            guard bytes[6] == UInt8(ascii: "."), !tail.isEmpty, tail.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return nil
            }
            var scale = 0.1
            for digit in tail {
                fraction += Double(digit - 48) * scale
                scale /= 10
            }
        }
        func pair(_ at: Int) -> Int { Int(bytes[at] - 48) * 10 + Int(bytes[at + 1] - 48) }
        let (hours, minutes, seconds) = (pair(0), pair(2), pair(4))
        guard hours < 24, minutes < 60, seconds <= 60 else { return nil }
        return Double(hours * 3_600 + minutes * 60 + seconds) + fraction
    }

    /// The instant at `timeOfDay` (UTC) on the day that puts it nearest to `reference`.
    static func date(timeOfDay: Double, near reference: Date) -> Date {
        let seconds = CivilCalendar.seconds(timeOfDay: timeOfDay, nearest: reference.timeIntervalSince1970)
        return Date(timeIntervalSince1970: seconds)
    }
}

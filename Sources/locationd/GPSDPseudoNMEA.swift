import CoreLocationEngine
import Foundation

/// Sentences made from a fix, for a client that watches with `nmea` where no receiver's sentences can be relayed to
/// it — the daemon has no live NMEA receiver, or the app is at reduced accuracy — as gpsd makes "pseudo-NMEA" for a
/// device that does not speak NMEA (decision 0090). `$GPRMC` (time, position, speed, track) and `$GPGSA` saying a 2D
/// fix, each ending in `\r\n`. No `$GPGGA`: its satellite count is not known for a fix that did not come from
/// receiver sentences, and gpsd 3.22 reads a GGA with none as no fix at all; so altitude is not carried (a client
/// that needs it reads the TPV). Minutes have seven decimals (2 mm), so a reader gets the TPV's position back to its
/// printed precision.
enum GPSDPseudoNMEA {
    static func sentences(_ fix: Fix) -> String {
        let utc = utcParts(fix.timestamp)
        let position = coordinate(fix.latitude, degreeDigits: 2, positive: "N", negative: "S") + ","
            + coordinate(fix.longitude, degreeDigits: 3, positive: "E", negative: "W")
        let speed = fix.speed >= 0 ? String(format: "%.3f", fix.speed / 0.514_444_444) : ""
        let track = fix.course >= 0 ? String(format: "%.3f", fix.course) : ""
        let rmc = "GPRMC,\(utc.time),A,\(position),\(speed),\(track),\(utc.date),,,A"
        return sentence(rmc) + sentence("GPGSA,A,2,,,,,,,,,,,,,,,")
    }

    /// `$BODY*HH\r\n`: the checksum is the XOR of the body's bytes.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + String(format: "*%02X", checksum) + "\r\n"
    }

    /// `ddmm.mmmmmmm,N` (latitude) or `dddmm.mmmmmmm,E` (longitude); minutes rounded first, so 59.99999999 carries.
    static func coordinate(_ value: Double, degreeDigits: Int, positive: String, negative: String) -> String {
        let magnitude = abs(value)
        var degrees = magnitude.rounded(.down)
        var minutes = ((magnitude - degrees) * 60 * 1e7).rounded() / 1e7
        if minutes >= 60 {
            degrees += 1
            minutes -= 60
        }
        let hemisphere = value < 0 ? negative : positive
        return String(format: "%0\(degreeDigits)d%010.7f,%@", Int(degrees), minutes, hemisphere)
    }

    /// `hhmmss.sss` and `ddmmyy` in UTC, cut at the TPV's millisecond (`GPSDReport.utc`), so a reader's time is the
    /// TPV's.
    static func utcParts(_ date: Date) -> (time: String, date: String) {
        let (parts, milliseconds) = GPSDReport.utc(date)
        let time = String(
            format: "%02d%02d%02d.%03d", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
        let day = String(format: "%02d%02d%02d", Int(parts.tm_mday), Int(parts.tm_mon) + 1, Int(parts.tm_year) % 100)
        return (time, day)
    }
}

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
        let speed = fix.speed >= 0 ? CFormat.fixed(fix.speed / 0.514_444_444, 3) : ""
        let track = fix.course >= 0 ? CFormat.fixed(fix.course, 3) : ""
        let rmc = "GPRMC,\(utc.time),A,\(position),\(speed),\(track),\(utc.date),,,A"
        return sentence(rmc) + sentence("GPGSA,A,2,,,,,,,,,,,,,,,")
    }

    /// `$BODY*HH\r\n`: the checksum is the XOR of the body's bytes.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + CFormat.hex(checksum, 2, uppercase: true) + "\r\n"
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
        return CFormat.padded(Int(degrees), degreeDigits) + CFormat.fixed(minutes, 7, width: 10) + "," + hemisphere
    }

    /// `hhmmss.sss` and `ddmmyy` in UTC, cut at the TPV's millisecond (`GPSDReport.utc`), so a reader's time is the
    /// TPV's.
    static func utcParts(_ date: Date) -> (time: String, date: String) {
        let utc = GPSDReport.utc(date)
        let time = CFormat.padded(utc.hour, 2) + CFormat.padded(utc.minute, 2) + CFormat.padded(utc.second, 2) + "."
            + CFormat.padded(utc.millisecond, 3)
        let day = CFormat.padded(utc.day, 2) + CFormat.padded(utc.month, 2) + CFormat.padded(utc.year % 100, 2)
        return (time, day)
    }
}

import CoreLocationEngine
import CoreLocationGeodesy
import CoreLocationSources
import Foundation
import NIOCore
import Synchronization

/// The objects the gpsd front door writes, as gpsd 3.22 writes them (gpsd_json(5); field order and printed
/// precision copied from gpsd 3.22's own output, decision 0077). Each is one line ending in `\r\n`, as gpsd's.
enum GPSDReport {
    /// The release and protocol locationd answers as: gpsd 3.22's, the protocol its clients on Debian 12 expect.
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#

    /// The one device a client sees: locationd's engine, whatever sources feed it.
    static let devicePath = "locationd"

    static func line(_ object: String) -> String { object + "\r\n" }

    static func error(_ message: String) -> String {
        #"{"class":"ERROR","message":""# + escaped(message) + #""}"#
    }

    /// `DEVICES` with the one device; `activated` while a watcher has started it. `sources` (the kinds of the
    /// daemon's sources: `gpsd`, `nmea`, `ip`, `simulated`…) is its `subtype`, which says where positions come from.
    static func devices(activated: Date?, sources: String) -> String {
        #"{"class":"DEVICES","devices":["# + device(activated: activated, sources: sources) + "]}"
    }

    static func device(activated: Date?, sources: String) -> String {
        var fields = #"{"class":"DEVICE","path":""# + devicePath + #"","driver":"locationd""#
        if !sources.isEmpty { fields += #","subtype":""# + escaped(sources) + #"""# }
        if let activated { fields += #","activated":""# + time(activated) + #"""# }
        return fields + #","flags":1}"#
    }

    /// `WATCH`: every field a client may set is echoed; `nmea` is served from a live receiver or made from the fixes
    /// (decision 0090), `raw`, `split24` and `pps` never (0077).
    static func watch(_ policy: GPSDWatchPolicy) -> String {
        var text = #"{"class":"WATCH","enable":\#(policy.enable),"json":\#(policy.json),"nmea":\#(policy.nmea),"raw":0"#
        text += #","scaled":\#(policy.scaled),"timing":\#(policy.timing),"split24":false,"pps":false"#
        if let device = policy.device { text += #","device":""# + escaped(device) + #"""# }
        return text + "}"
    }

    static func poll(at now: Date, active: Int, fixes: [Fix], skies: [SatelliteView] = []) -> String {
        let tpvs = fixes.map { tpv($0) }.joined(separator: ",")
        return #"{"class":"POLL","time":""# + time(now) + #"","active":\#(active),"tpv":["# + tpvs
            + #"],"gst":[],"sky":["# + skies.map { sky($0) }.joined(separator: ",") + "]}"
    }

    /// A `TPV` from one fix (decision 0077): mode 3 when the fix has a valid altitude, else 2 (a network, cell
    /// or IP position has none); error estimates back to gpsd's 95 % from Core Location's 68 % radius and 1σ,
    /// the inverse of `GPSDTPV.fix`. What a fix does not carry (ept, climb, epc, sep, magtrack) is left out,
    /// as gpsd leaves out what its receiver does not say.
    static func tpv(_ fix: Fix) -> String {
        String(decoding: tpvBytes(fix), as: UTF8.self)
    }

    /// `tpv(fix)` as bytes, built in place (no string per field: the TPV is made on the way from a fix to the first
    /// client, decision 0077).
    static func tpvBytes(_ fix: Fix) -> [UInt8] {
        var text = Text()
        let hasAltitude = fix.verticalAccuracy >= 0
        text.append(#"{"class":"TPV","device":""#)
        text.bytes.append(contentsOf: devicePath.utf8)
        text.append(#"","mode":"#)
        text.append(hasAltitude ? "3" : "2")
        text.append(#","time":""#)
        text.time(fix.timestamp)
        text.append(#"""#)
        text.number(#","lat":"#, fix.latitude, 9)
        text.number(#","lon":"#, fix.longitude, 9)
        if hasAltitude {
            text.number(#","altHAE":"#, fix.ellipsoidalAltitude, 4)
            text.number(#","altMSL":"#, fix.altitude, 4)
            text.number(#","alt":"#, fix.altitude, 4)
        }
        let eph = fix.horizontalAccuracy >= 0 ? fix.horizontalAccuracy / GPSDTPV.horizontalConfidenceScale : nil
        if let eph {
            // A circle of uncertainty: its longitude and latitude errors equal, √(epx² + epy²) = eph.
            let axis = eph / 2.0.squareRoot()
            text.number(#","epx":"#, axis, 3)
            text.number(#","epy":"#, axis, 3)
        }
        if hasAltitude { text.number(#","epv":"#, fix.verticalAccuracy / GPSDTPV.linearConfidenceScale, 3) }
        if fix.course >= 0 { text.number(#","track":"#, fix.course, 4) }
        if fix.speed >= 0 { text.number(#","speed":"#, fix.speed, 3) }
        if fix.course >= 0, fix.courseAccuracy >= 0 {
            text.number(#","epd":"#, fix.courseAccuracy / GPSDTPV.linearConfidenceScale, 4)
        }
        if fix.speed >= 0, fix.speedAccuracy >= 0 {
            text.number(#","eps":"#, fix.speedAccuracy / GPSDTPV.linearConfidenceScale, 2)
        }
        if hasAltitude { text.number(#","geoidSep":"#, fix.ellipsoidalAltitude - fix.altitude, 3) }
        if let eph { text.number(#","eph":"#, eph, 3) }
        text.append("}")
        return text.bytes
    }

    /// An object's text, appended as bytes.
    struct Text {
        var bytes: [UInt8] = []

        init() {
            bytes.reserveCapacity(384)
        }

        mutating func append(_ literal: StaticString) {
            literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// `,"key":` then the number as gpsd prints it (`%.Nf`; a value that is not finite as 0, callers check).
        mutating func number(_ key: StaticString, _ value: Double, _ digits: Int) {
            append(key)
            CFormat.appendFixed(value.isFinite ? value : 0, digits, to: &bytes)
        }

        /// ISO 8601 UTC with milliseconds (`GPSDReport.time`).
        mutating func time(_ date: Date) {
            let utc = GPSDReport.utc(date)
            // Each field, zero-padded to its width, and the character after it.
            let fields: [(value: Int, width: Int, after: Unicode.Scalar)] = [
                (utc.year, 4, "-"), (utc.month, 2, "-"), (utc.day, 2, "T"), (utc.hour, 2, ":"), (utc.minute, 2, ":"),
                (utc.second, 2, "."), (utc.millisecond, 3, "Z"),
            ]
            for field in fields {
                CFormat.appendDecimal(UInt64(clamping: field.value), width: field.width, to: &bytes)
                bytes.append(UInt8(ascii: field.after))
            }
        }
    }

    /// A `SKY` from a receiver's satellite view (decision 0089), as gpsd 3.22 writes it from NMEA: the dilutions it
    /// has (the receiver's, the rest from the geometry), `nSat`/`uSat` counted from the list, and each satellite's
    /// `PRN`, `el`, `az`, `ss` (0.0 for what the receiver left empty, as gpsd), `used`, `gnssid`, `svid`.
    static func sky(_ view: SatelliteView) -> String {
        var text = #"{"class":"SKY","device":""# + devicePath + #"""#
        let dop = view.dilution
        for (name, value) in [
            ("xdop", dop.x), ("ydop", dop.y), ("vdop", dop.vertical), ("tdop", dop.time), ("hdop", dop.horizontal),
            ("gdop", dop.geometric), ("pdop", dop.position),
        ] {
            if let value, value.isFinite { text += #",""# + name + #"":"# + number(value, 2) }
        }
        text += #","nSat":\#(view.satellites.count),"uSat":\#(view.satellites.filter(\.used).count)"#
        let satellites = view.satellites.map { satellite in
            #"{"PRN":\#(satellite.prn),"el":"# + number(satellite.elevation ?? 0, 1) + #","az":"#
                + number(satellite.azimuth ?? 0, 1) + #","ss":"# + number(satellite.snr ?? 0, 1)
                + #","used":\#(satellite.used),"gnssid":\#(satellite.gnssID),"svid":\#(satellite.svID)}"#
        }
        return text + #","satellites":["# + satellites.joined(separator: ",") + "]}"
    }

    /// The last line made from one value, shared by every client that writes the same one (one fix, one epoch's
    /// satellites): formatted once, not once per client (at 1 000 clients formatting each client's copy was most of
    /// the front door's CPU), and one buffer written to every client's socket (a `ByteBuffer` is a counted view: no
    /// copy per client).
    final class LastLine<Value: Equatable & Sendable>: Sendable {
        private let last = Mutex<(value: Value, line: ByteBuffer)?>(nil)

        func line(_ value: Value, _ make: (Value) -> [UInt8]) -> ByteBuffer {
            // Compared under the lock: the value and its line are not copied out for every client (decision 0097).
            if let line = last.withLock({ last in last.flatMap { $0.value == value ? $0.line : nil } }) { return line }
            var bytes = make(value)
            bytes.append(contentsOf: "\r\n".utf8)
            let made = ByteBuffer(bytes: bytes)
            last.withLock { $0 = (value, made) }
            return made
        }
    }

    private static let lastTPV = LastLine<Fix>()
    private static let lastSKY = LastLine<SatelliteView>()

    /// `tpv(fix)` as a line, shared by the clients that receive the same fix.
    static func tpvLine(_ fix: Fix) -> ByteBuffer { lastTPV.line(fix, tpvBytes) }

    /// `sky(view)` as a line, shared by the clients of one epoch.
    static func skyLine(_ view: SatelliteView) -> ByteBuffer { lastSKY.line(view) { Array(sky($0).utf8) } }

    /// `%.Nf`, as gpsd prints; a value that is not finite is never written (callers check first).
    static func number(_ value: Double, _ digits: Int) -> String {
        CFormat.fixed(value.isFinite ? value : 0, digits)
    }

    /// ISO 8601 UTC with milliseconds, as gpsd's `timespec_to_iso8601`.
    static func time(_ date: Date) -> String {
        var text = Text()
        text.time(date)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// A moment's UTC calendar fields, in the proleptic Gregorian calendar (as `gmtime`).
    struct UTC: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int
        var millisecond: Int
    }

    /// The UTC calendar fields of `date`, cut (rounded down) at the millisecond: every time locationd writes for
    /// gpsd's clients (TPV `time`, made NMEA sentences) is cut at the same one. By arithmetic (`CivilCalendar`), not
    /// `gmtime_r`, which takes glibc's time-zone lock on the way from a fix to its clients. Dates are held to years
    /// 1…9999 (what a TPV's four-digit year can say; NaN as 1970).
    static func utc(_ date: Date) -> UTC {
        let seconds = date.timeIntervalSince1970.isNaN ? 0 : date.timeIntervalSince1970
        let bounded = min(max(seconds, -62_135_596_800), 253_402_300_799.999)
        let milliseconds = Int64((bounded * 1000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = CivilCalendar.date(days: Int(days))
        let secondOfDay = Int(dayMilliseconds / 1000)
        return UTC(
            year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60, millisecond: Int(dayMilliseconds % 1000))
    }

    /// A JSON string's contents: quotes, backslashes and control characters escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += "\\u" + CFormat.hex(scalar.value, 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Int64 {
    /// Quotient rounded toward −∞ and a remainder in 0..<divisor (divisor > 0).
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

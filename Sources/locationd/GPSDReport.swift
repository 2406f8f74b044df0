import CoreLocationEngine
import CoreLocationSources
import Foundation
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
        let hasAltitude = fix.verticalAccuracy >= 0
        var text = #"{"class":"TPV","device":""# + devicePath + #"","mode":\#(hasAltitude ? 3 : 2)"#
        text += #","time":""# + time(fix.timestamp) + #"""#
        text += #","lat":"# + number(fix.latitude, 9) + #","lon":"# + number(fix.longitude, 9)
        if hasAltitude {
            text += #","altHAE":"# + number(fix.ellipsoidalAltitude, 4) + #","altMSL":"# + number(fix.altitude, 4)
            text += #","alt":"# + number(fix.altitude, 4)
        }
        let eph = fix.horizontalAccuracy >= 0 ? fix.horizontalAccuracy / GPSDTPV.horizontalConfidenceScale : nil
        if let eph {
            // A circle of uncertainty: its longitude and latitude errors equal, √(epx² + epy²) = eph.
            let axis = eph / 2.0.squareRoot()
            text += #","epx":"# + number(axis, 3) + #","epy":"# + number(axis, 3)
        }
        if hasAltitude { text += #","epv":"# + number(fix.verticalAccuracy / GPSDTPV.linearConfidenceScale, 3) }
        if fix.course >= 0 { text += #","track":"# + number(fix.course, 4) }
        if fix.speed >= 0 { text += #","speed":"# + number(fix.speed, 3) }
        if fix.course >= 0, fix.courseAccuracy >= 0 {
            text += #","epd":"# + number(fix.courseAccuracy / GPSDTPV.linearConfidenceScale, 4)
        }
        if fix.speed >= 0, fix.speedAccuracy >= 0 {
            text += #","eps":"# + number(fix.speedAccuracy / GPSDTPV.linearConfidenceScale, 2)
        }
        if hasAltitude { text += #","geoidSep":"# + number(fix.ellipsoidalAltitude - fix.altitude, 3) }
        if let eph { text += #","eph":"# + number(eph, 3) }
        return text + "}"
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
    /// the front door's CPU).
    final class LastLine<Value: Equatable & Sendable>: Sendable {
        private let last = Mutex<(value: Value, line: String)?>(nil)

        func line(_ value: Value, _ make: (Value) -> String) -> String {
            if let last = last.withLock({ $0 }), last.value == value { return last.line }
            let made = GPSDReport.line(make(value))
            last.withLock { $0 = (value, made) }
            return made
        }
    }

    private static let lastTPV = LastLine<Fix>()
    private static let lastSKY = LastLine<SatelliteView>()

    /// `tpv(fix)` as a line, shared by the clients that receive the same fix.
    static func tpvLine(_ fix: Fix) -> String { lastTPV.line(fix, tpv) }

    /// `sky(view)` as a line, shared by the clients of one epoch.
    static func skyLine(_ view: SatelliteView) -> String { lastSKY.line(view, sky) }

    /// `%.Nf`, as gpsd prints; a value that is not finite is never written (callers check first).
    static func number(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value.isFinite ? value : 0)
    }

    /// ISO 8601 UTC with milliseconds, as gpsd's `timespec_to_iso8601`.
    static func time(_ date: Date) -> String {
        let (parts, milliseconds) = utc(date)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
    }

    /// The UTC calendar fields of `date` and its milliseconds, truncated: every time locationd writes for gpsd's
    /// clients (TPV `time`, made NMEA sentences) is cut at the same millisecond.
    static func utc(_ date: Date) -> (parts: tm, milliseconds: Int) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var whole = time_t(seconds.quotient)
        var parts = tm()
        gmtime_r(&whole, &parts)
        return (parts, Int(seconds.remainder))
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
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

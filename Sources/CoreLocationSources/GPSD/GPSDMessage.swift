import Foundation

/// One object of gpsd's JSON protocol (gpsd_json(5)), decoded envelope first: the `class` field
/// picks the payload type. Absent fields are `nil`, never NaN.
public enum GPSDMessage: Sendable, Equatable {
    case version(GPSDVersion)
    case watch(GPSDWatch)
    case devices(GPSDDevices)
    case device(GPSDDevice)
    case tpv(GPSDTPV)
    case sky(GPSDSky)
    case gst(GPSDGST)
    case att(GPSDATT)
    case error(GPSDErrorReport)
    case poll(GPSDPoll)
    /// A well-formed object of a class this client does not use (AIS, PPS, TOFF, RAW…).
    case unknown(className: String)
}

/// The envelope every gpsd object shares.
struct GPSDEnvelope: Decodable {
    var `class`: String
}

/// `VERSION`: sent once on connect.
public struct GPSDVersion: Codable, Sendable, Equatable {
    public var release: String?
    public var rev: String?
    public var proto_major: Int?
    public var proto_minor: Int?
}

/// `WATCH`: the watcher policy gpsd applied.
public struct GPSDWatch: Codable, Sendable, Equatable {
    public var enable: Bool?
    public var json: Bool?
    public var device: String?
}

/// `DEVICE`: one receiver gpsd knows; `activated` is present while it is open (powered).
public struct GPSDDevice: Codable, Sendable, Equatable {
    public var path: String?
    public var driver: String?
    public var subtype: String?
    public var activated: String?
    public var flags: Int?
    public var bps: Int?
    /// Seconds between fixes.
    public var cycle: Double?
}

/// `DEVICES`: every receiver gpsd knows.
public struct GPSDDevices: Codable, Sendable, Equatable {
    public var devices: [GPSDDevice]?
}

/// `TPV`: time, position, velocity. Units as gpsd sends them: degrees, metres, metres per second,
/// degrees from true north; `ep*` error estimates in metres (`epd` in degrees, `eps` in m/s).
public struct GPSDTPV: Codable, Sendable, Equatable {
    public var device: String?
    /// 0 = no mode seen yet, 1 = no fix, 2 = 2D, 3 = 3D.
    public var mode: Int?
    /// 2 = DGPS and other augmented statuses; absent for a plain fix.
    public var status: Int?
    /// ISO 8601, UTC, up to millisecond precision.
    public var time: String?
    public var ept: Double?
    public var lat: Double?
    public var lon: Double?
    /// Height above the ellipsoid (gpsd ≥ 3.20).
    public var altHAE: Double?
    /// Height above mean sea level (gpsd ≥ 3.20).
    public var altMSL: Double?
    /// Deprecated alias of altMSL in gpsd ≥ 3.20; the only altitude before.
    public var alt: Double?
    /// Geoid separation (altHAE − altMSL), metres.
    public var geoidSep: Double?
    public var epx: Double?
    public var epy: Double?
    public var eph: Double?
    public var epv: Double?
    public var track: Double?
    public var epd: Double?
    public var speed: Double?
    public var eps: Double?
    public var climb: Double?
    public var epc: Double?
}

/// `SKY`: the satellites in view.
public struct GPSDSky: Codable, Sendable, Equatable {
    public struct Satellite: Codable, Sendable, Equatable {
        public var PRN: Int?
        public var el: Double?
        public var az: Double?
        public var ss: Double?
        public var used: Bool?
        public var gnssid: Int?
        public var svid: Int?
    }

    public var device: String?
    public var time: String?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Satellites in view (gpsd ≥ 3.23 sends it; older versions only the list).
    public var nSat: Int?
    /// Satellites used in the solution (gpsd ≥ 3.23).
    public var uSat: Int?
    public var satellites: [Satellite]?

    /// Satellites in view: `nSat`, else the length of the list.
    public var inView: Int? { nSat ?? satellites?.count }
    /// Satellites used: `uSat`, else those the list flags as used.
    public var used: Int? { uSat ?? satellites.map { $0.filter { $0.used == true }.count } }
}

/// `GST`: pseudorange noise statistics; standard deviations in metres (1σ).
public struct GPSDGST: Codable, Sendable, Equatable {
    public var device: String?
    public var time: String?
    public var rms: Double?
    public var major: Double?
    public var minor: Double?
    public var orient: Double?
    public var lat: Double?
    public var lon: Double?
    public var alt: Double?
}

/// `ATT`: attitude (heading, pitch, roll) from a compass or an inertial unit; degrees.
public struct GPSDATT: Codable, Sendable, Equatable {
    public var device: String?
    public var time: String?
    /// Degrees from true north.
    public var heading: Double?
    public var pitch: Double?
    public var roll: Double?
    public var yaw: Double?
    /// Degrees from magnetic north (gpsd 3.23 and later).
    public var mheading: Double?
    /// Magnetometer status letter (`N` normal; `C`, `L`, `P`, `V` alarms).
    public var mag_st: String?
}

/// `ERROR`: gpsd could not honour a request.
public struct GPSDErrorReport: Codable, Sendable, Equatable {
    public var message: String?
}

/// `POLL`: the answer to `?POLL;`, the latest TPV and SKY of every device.
public struct GPSDPoll: Codable, Sendable, Equatable {
    public var time: String?
    public var active: Int?
    public var tpv: [GPSDTPV]?
    public var sky: [GPSDSky]?
}

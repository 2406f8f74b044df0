import Foundation

/// One position on the wire. Units as in Core Location: degrees (WGS84), metres, metres per second, degrees
/// clockwise from true north; a negative accuracy marks its value invalid; `course` and `speed` are −1 when
/// unknown. `timestamp` is seconds since 2001-01-01 00:00:00 UTC (`Date.timeIntervalSinceReferenceDate`).
/// `floor` is left out when unknown; `isFused` (GNSS + IMU, decision 0095) only when true, so a peer that predates
/// it reads every other fix as before and an older daemon's fixes read as not fused.
public struct WireFix: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double
    public var ellipsoidalAltitude: Double
    public var horizontalAccuracy: Double
    public var verticalAccuracy: Double
    public var course: Double
    public var courseAccuracy: Double
    public var speed: Double
    public var speedAccuracy: Double
    public var timestamp: Date
    public var floor: Int?
    public var isSimulated: Bool
    public var isFromAccessory: Bool
    public var isFused: Bool

    public init(
        latitude: Double, longitude: Double, altitude: Double, ellipsoidalAltitude: Double, horizontalAccuracy: Double,
        verticalAccuracy: Double, course: Double, courseAccuracy: Double, speed: Double, speedAccuracy: Double,
        timestamp: Date, floor: Int?, isSimulated: Bool, isFromAccessory: Bool, isFused: Bool = false
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
        self.floor = floor
        self.isSimulated = isSimulated
        self.isFromAccessory = isFromAccessory
        self.isFused = isFused
    }
}

extension WireFix: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        latitude = try c.decode(Double.self, forKey: "latitude")
        longitude = try c.decode(Double.self, forKey: "longitude")
        altitude = try c.decode(Double.self, forKey: "altitude")
        ellipsoidalAltitude = try c.decode(Double.self, forKey: "ellipsoidalAltitude")
        horizontalAccuracy = try c.decode(Double.self, forKey: "horizontalAccuracy")
        verticalAccuracy = try c.decode(Double.self, forKey: "verticalAccuracy")
        course = try c.decode(Double.self, forKey: "course")
        courseAccuracy = try c.decode(Double.self, forKey: "courseAccuracy")
        speed = try c.decode(Double.self, forKey: "speed")
        speedAccuracy = try c.decode(Double.self, forKey: "speedAccuracy")
        timestamp = try c.decode(Date.self, forKey: "timestamp")
        floor = try c.decodeIfPresent(Int.self, forKey: "floor")
        isSimulated = try c.decode(Bool.self, forKey: "isSimulated")
        isFromAccessory = try c.decode(Bool.self, forKey: "isFromAccessory")
        isFused = try c.decodeIfPresent(Bool.self, forKey: "isFused") ?? false
    }

    /// `DeliveryJSON` writes the same keys by hand; `DeliveryJSONTests` and the fuzz target hold the two equal.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(latitude, forKey: "latitude")
        try c.encode(longitude, forKey: "longitude")
        try c.encode(altitude, forKey: "altitude")
        try c.encode(ellipsoidalAltitude, forKey: "ellipsoidalAltitude")
        try c.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
        try c.encode(verticalAccuracy, forKey: "verticalAccuracy")
        try c.encode(course, forKey: "course")
        try c.encode(courseAccuracy, forKey: "courseAccuracy")
        try c.encode(speed, forKey: "speed")
        try c.encode(speedAccuracy, forKey: "speedAccuracy")
        try c.encode(timestamp, forKey: "timestamp")
        try c.encodeIfPresent(floor, forKey: "floor")
        try c.encode(isSimulated, forKey: "isSimulated")
        try c.encode(isFromAccessory, forKey: "isFromAccessory")
        if isFused { try c.encode(true, forKey: "isFused") }
    }
}

/// One batch of positions for one client: `isStationary` (the device has not moved for a while),
/// `accuracyLimited` (coarsened: the app holds reduced accuracy), `isRequestedLocation` (the answer to
/// `requestLocation`).
public struct WireDelivery: Hashable, Sendable {
    public var fixes: [WireFix]
    public var isStationary: Bool
    public var accuracyLimited: Bool
    public var isRequestedLocation: Bool

    public init(fixes: [WireFix], isStationary: Bool, accuracyLimited: Bool, isRequestedLocation: Bool) {
        self.fixes = fixes
        self.isStationary = isStationary
        self.accuracyLimited = accuracyLimited
        self.isRequestedLocation = isRequestedLocation
    }
}

extension WireDelivery: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        fixes = try c.decode([WireFix].self, forKey: "fixes")
        isStationary = try c.decode(Bool.self, forKey: "isStationary")
        accuracyLimited = try c.decode(Bool.self, forKey: "accuracyLimited")
        isRequestedLocation = try c.decode(Bool.self, forKey: "isRequestedLocation")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(fixes, forKey: "fixes")
        try c.encode(isStationary, forKey: "isStationary")
        try c.encode(accuracyLimited, forKey: "accuracyLimited")
        try c.encode(isRequestedLocation, forKey: "isRequestedLocation")
    }
}

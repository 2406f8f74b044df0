import Foundation

/// One position estimate from a source, in the engine's plain terms.
///
/// Units follow Core Location: degrees (WGS84), metres, metres per second, degrees clockwise
/// from true north. A negative accuracy means the matching value is invalid, as in
/// `CLLocation`; `course` and `speed` are −1 when unknown.
public struct Fix: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Height above mean sea level, metres.
    public var altitude: Double
    /// Height above the WGS84 ellipsoid, metres.
    public var ellipsoidalAltitude: Double
    /// Radius of uncertainty of the position, metres; negative when the position is invalid.
    public var horizontalAccuracy: Double
    /// Uncertainty of the altitudes, metres; negative when they are invalid.
    public var verticalAccuracy: Double
    public var course: Double
    public var courseAccuracy: Double
    public var speed: Double
    public var speedAccuracy: Double
    /// When the position was measured (wall clock).
    public var timestamp: Date
    /// Floor level, when a source knows it.
    public var floor: Int?
    /// True for every fix that software made up (simulator, replay).
    public var isSimulated: Bool
    /// True for fixes from an external accessory (a receiver on a serial line, gpsd).
    public var isFromAccessory: Bool
    /// True for a fix the engine's fusion filter made from GNSS and an IMU, or dead-reckoned by the IMU alone through
    /// a GNSS outage (decision 0095). Apple's `CLLocationSourceInformation` has no such field; `locationctl` shows it.
    public var isFused: Bool

    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double = 0,
        ellipsoidalAltitude: Double = 0,
        horizontalAccuracy: Double,
        verticalAccuracy: Double = -1,
        course: Double = -1,
        courseAccuracy: Double = -1,
        speed: Double = -1,
        speedAccuracy: Double = -1,
        timestamp: Date,
        floor: Int? = nil,
        isSimulated: Bool = false,
        isFromAccessory: Bool = false,
        isFused: Bool = false
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

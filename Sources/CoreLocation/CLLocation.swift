import Foundation
import CoreLocationGeodesy

/// A position on the WGS84 ellipsoid with its accuracy, altitude, course, speed and time.
///
/// Negative accuracies mean the matching values are invalid, as on Apple's platforms: a `speed` of −1
/// is "unknown". Equality is identity (`NSObject`'s), as on Apple's platforms: compare `coordinate`s or
/// use `distance(from:)` to tell whether two locations are the same place.
///
/// Not `Codable`: a `Codable` open class forces every subclass that declares an initializer to also write
/// `required init(from:)`, which would break app subclasses (test doubles) that compile against Apple's SDK.
/// Use `NSKeyedArchiver` (it is `NSSecureCoding`), or encode the properties.
///
/// Immutable. `@unchecked Sendable` is safe: the only stored property is a `let` of a `Sendable` struct
/// (whose class members, `CLFloor` and `CLLocationSourceInformation`, are immutable and `Sendable`).
/// Subclasses that add mutable state must protect it.
open class CLLocation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    let fields: Fields

    /// A location at (0, 0) with invalid altitude, course and speed, timestamped now.
    override public init() {
        self.fields = Fields(coordinate: CLLocationCoordinate2D(), horizontalAccuracy: 0, timestamp: Date())
        super.init()
    }

    /// A location at `latitude`, `longitude` with a horizontal accuracy of 0, invalid altitude, course and
    /// speed, timestamped now.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.fields = Fields(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
            horizontalAccuracy: 0,
            timestamp: Date()
        )
        super.init()
    }

    /// A location with invalid course and speed. `ellipsoidalAltitude` equals `altitude`.
    public init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        timestamp: Date
    ) {
        self.fields = Fields(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy, timestamp: timestamp
        )
        super.init()
    }

    /// A location with course and speed of unknown accuracy. `ellipsoidalAltitude` equals `altitude`.
    public init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        speed: CLLocationSpeed,
        timestamp: Date
    ) {
        self.fields = Fields(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: course, speed: speed, timestamp: timestamp
        )
        super.init()
    }

    /// A location with course, speed and their accuracies. `ellipsoidalAltitude` equals `altitude`.
    public init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy,
        timestamp: Date
    ) {
        self.fields = Fields(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: course, courseAccuracy: courseAccuracy, speed: speed, speedAccuracy: speedAccuracy,
            timestamp: timestamp
        )
        super.init()
    }

    /// A location with every value and where it came from. `ellipsoidalAltitude` equals `altitude`.
    public init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy,
        verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy,
        timestamp: Date,
        sourceInfo: CLLocationSourceInformation
    ) {
        self.fields = Fields(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: course, courseAccuracy: courseAccuracy, speed: speed, speedAccuracy: speedAccuracy,
            timestamp: timestamp, sourceInformation: sourceInfo
        )
        super.init()
    }

    /// Every field, including the ones Apple's public initializers cannot set (ellipsoidal altitude, floor).
    package init(
        coordinate: CLLocationCoordinate2D,
        altitude: CLLocationDistance,
        ellipsoidalAltitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy,
        timestamp: Date,
        floor: CLFloor?,
        sourceInformation: CLLocationSourceInformation?
    ) {
        self.fields = Fields(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: ellipsoidalAltitude,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: course, courseAccuracy: courseAccuracy, speed: speed, speedAccuracy: speedAccuracy,
            timestamp: timestamp, floor: floor, sourceInformation: sourceInformation
        )
        super.init()
    }

    // MARK: Properties

    /// Latitude and longitude, degrees (WGS84).
    open var coordinate: CLLocationCoordinate2D { fields.coordinate }
    /// Height above mean sea level, metres; valid only when `verticalAccuracy` ≥ 0.
    open var altitude: CLLocationDistance { fields.altitude }
    /// Height above the WGS84 ellipsoid, metres; valid only when `verticalAccuracy` ≥ 0.
    open var ellipsoidalAltitude: CLLocationDistance { fields.ellipsoidalAltitude }
    /// Radius of uncertainty of `coordinate`, metres; negative when `coordinate` is invalid.
    open var horizontalAccuracy: CLLocationAccuracy { fields.horizontalAccuracy }
    /// Uncertainty of the altitudes, metres; negative when they are invalid.
    open var verticalAccuracy: CLLocationAccuracy { fields.verticalAccuracy }
    /// Direction of travel, degrees clockwise from true north (0 ..< 360); negative when invalid.
    open var course: CLLocationDirection { fields.course }
    /// Uncertainty of `course`, degrees; negative when invalid.
    open var courseAccuracy: CLLocationDirectionAccuracy { fields.courseAccuracy }
    /// Instantaneous speed, metres per second; negative when invalid.
    open var speed: CLLocationSpeed { fields.speed }
    /// Uncertainty of `speed`, metres per second; negative when invalid.
    open var speedAccuracy: CLLocationSpeedAccuracy { fields.speedAccuracy }
    /// When the location was determined.
    open var timestamp: Date { fields.timestamp }
    /// The floor of the building, when known.
    open var floor: CLFloor? { fields.floor }
    /// Whether the location was simulated or came from an accessory, when known.
    open var sourceInformation: CLLocationSourceInformation? { fields.sourceInformation }

    /// The length of the geodesic to `location` on the WGS84 ellipsoid, metres.
    ///
    /// Method: `Geodesic.wgs84.inverse` (Karney's algorithm, accurate to well under a millimetre).
    /// Invalid coordinates do not trap: the result is whatever the geodesic gives (NaN for NaN input).
    open func distance(from location: CLLocation) -> CLLocationDistance {
        let a = coordinate, b = location.coordinate
        return Geodesic.wgs84.inverse(
            latitude1: a.latitude, longitude1: a.longitude, latitude2: b.latitude, longitude2: b.longitude
        ).distance
    }

    /// Apple's format: `<+37.33233141,-122.03121860> +/- 5.00m (speed 0.00 mps / course -1.00) @ <date>`,
    /// the date in the current locale and time zone (short date, full time).
    override open var description: String {
        description(locale: .current, timeZone: .current)
    }

    // MARK: NSCopying, NSSecureCoding

    /// The location itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        encodeFields(with: coder)
    }

    public required init?(coder: NSCoder) {
        self.fields = Fields(decodingWith: coder)
        super.init()
    }
}

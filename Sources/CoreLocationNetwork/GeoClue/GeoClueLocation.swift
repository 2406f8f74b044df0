import CoreLocationDBus
import CoreLocationEngine
import Foundation

/// GeoClue 2's D-Bus names (https://www.freedesktop.org/software/geoclue/docs/, `org.freedesktop.GeoClue2.*`).
public enum GeoClue {
    public static let service = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    public static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    public static let clientInterface = "org.freedesktop.GeoClue2.Client"
    public static let locationInterface = "org.freedesktop.GeoClue2.Location"

    /// `GClueAccuracyLevel`: what a client asks for (`RequestedAccuracyLevel`).
    public enum AccuracyLevel: UInt32, Sendable, Hashable, CaseIterable {
        case none = 0, country = 1, city = 4, neighborhood = 5, street = 6, exact = 8

        /// The level's name in a URL (`geoclue:?accuracy=city`).
        public init?(name: String) {
            switch name {
            case "country": self = .country
            case "city": self = .city
            case "neighborhood", "neighbourhood": self = .neighborhood
            case "street": self = .street
            case "exact": self = .exact
            default: return nil
            }
        }

        /// What GeoClue typically delivers at this level, metres (its own constants: country 300 km, city 15 km,
        /// neighbourhood 5 km, street 1 km; exact: a Wi-Fi answer, ~100 m).
        public var expectedAccuracy: Double {
            switch self {
            case .none, .country: 300_000
            case .city: 15_000
            case .neighborhood: 5_000
            case .street: 1_000
            case .exact: 100
            }
        }
    }

    /// A `Location` object's properties as a fix. Altitude `-DBL_MAX` (GeoClue's unknown) gives no altitude
    /// (vertical accuracy −1); negative speed or heading are unknown (−1, as CLLocation's); the timestamp is
    /// GeoClue's `(tt)` seconds and microseconds since 1970 (absent: `now`). Nil without latitude, longitude and a
    /// non-negative accuracy.
    public static func fix(_ properties: [String: DBusValue], now: Date) -> Fix? {
        guard let latitude = properties["Latitude"]?.double, let longitude = properties["Longitude"]?.double,
            let accuracy = properties["Accuracy"]?.double, accuracy >= 0, latitude.isFinite, longitude.isFinite,
            abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        var timestamp = now
        if case .structure(let fields)? = properties["Timestamp"]?.unwrapped,
            case let parts = fields.compactMap(\.integer), parts.count == 2, parts[0] > 0
        {
            timestamp = Date(timeIntervalSince1970: Double(parts[0]) + Double(parts[1]) / 1e6)
        }
        let altitude = properties["Altitude"]?.double
        let knownAltitude = altitude.flatMap { $0 > -1e300 && $0.isFinite ? $0 : nil }
        let speed = properties["Speed"]?.double.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
        let heading = properties["Heading"]?.double.flatMap { $0 >= 0 && $0 < 360 ? $0 : nil }
        return Fix(
            latitude: latitude, longitude: longitude, altitude: knownAltitude ?? 0,
            ellipsoidalAltitude: knownAltitude ?? 0, horizontalAccuracy: accuracy,
            // GeoClue gives no vertical accuracy; an altitude it reports is as good as its horizontal answer.
            verticalAccuracy: knownAltitude == nil ? -1 : accuracy, course: heading ?? -1, speed: speed ?? -1,
            timestamp: timestamp)
    }
}

import Foundation

/// A latitude and longitude on the WGS84 ellipsoid, in degrees.
///
/// Like Apple's, this struct is deliberately *not* `Equatable`, `Hashable` or `Codable`: apps
/// commonly add those conformances themselves, and a conformance here would make their code fail to
/// compile ("redundant conformance").
public struct CLLocationCoordinate2D: Sendable {
    /// Degrees north of the equator, −90 ... 90.
    public var latitude: CLLocationDegrees
    /// Degrees east of the prime meridian, −180 ... 180.
    public var longitude: CLLocationDegrees

    /// The coordinate (0, 0).
    public init() {
        self.latitude = 0
        self.longitude = 0
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The coordinate Core Location uses for "no coordinate": (−180, −180), which is not valid.
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)

/// Whether the coordinate is a real place: latitude in −90 ... 90, longitude in −180 ... 180, neither NaN.
public func CLLocationCoordinate2DIsValid(_ coord: CLLocationCoordinate2D) -> Bool {
    // Comparisons with NaN are false, so NaN fails both range checks.
    (-90...90).contains(coord.latitude) && (-180...180).contains(coord.longitude)
}

/// Makes a coordinate from a latitude and a longitude, in degrees.
public func CLLocationCoordinate2DMake(
    _ latitude: CLLocationDegrees,
    _ longitude: CLLocationDegrees
) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

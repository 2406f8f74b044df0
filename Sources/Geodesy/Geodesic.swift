// PLACEHOLDER (spherical). The geodesy helper replaces this file with Karney's algorithm.
// The public API below is the contract other modules compile against.
import Foundation

/// The result of the inverse geodesic problem between two points.
public struct GeodesicInverse: Sendable, Hashable {
    /// Length of the geodesic in metres.
    public var distance: Double
    /// Forward azimuth at the first point, degrees clockwise from north, in (-180, 180].
    public var azimuth1: Double
    /// Forward azimuth at the second point, degrees clockwise from north, in (-180, 180].
    public var azimuth2: Double

    public init(distance: Double, azimuth1: Double, azimuth2: Double) {
        self.distance = distance
        self.azimuth1 = azimuth1
        self.azimuth2 = azimuth2
    }
}

/// The result of the direct geodesic problem.
public struct GeodesicDirect: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var azimuth2: Double

    public init(latitude: Double, longitude: Double, azimuth2: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.azimuth2 = azimuth2
    }
}

/// Geodesics on an ellipsoid of revolution.
public struct Geodesic: Sendable {
    public let equatorialRadius: Double
    public let flattening: Double

    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    /// The WGS84 ellipsoid: a = 6378137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Solves the inverse problem. Any input that is NaN gives NaN outputs; never traps.
    public func inverse(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double)
        -> GeodesicInverse
    {
        let r = equatorialRadius
        let p1 = latitude1 * .pi / 180, p2 = latitude2 * .pi / 180
        let dl = (longitude2 - longitude1) * .pi / 180
        let h = sin((p2 - p1) / 2) * sin((p2 - p1) / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        let d = 2 * r * asin(min(1, sqrt(h)))
        let az1 = atan2(sin(dl) * cos(p2), cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)) * 180 / .pi
        return GeodesicInverse(distance: d, azimuth1: az1, azimuth2: az1)
    }

    /// Solves the direct problem: the point `distance` metres from the start along `azimuth1`.
    public func direct(latitude1: Double, longitude1: Double, azimuth1: Double, distance: Double) -> GeodesicDirect {
        let r = equatorialRadius
        let p1 = latitude1 * .pi / 180, l1 = longitude1 * .pi / 180, a = azimuth1 * .pi / 180
        let dr = distance / r
        let p2 = asin(sin(p1) * cos(dr) + cos(p1) * sin(dr) * cos(a))
        let l2 = l1 + atan2(sin(a) * sin(dr) * cos(p1), cos(dr) - sin(p1) * sin(p2))
        return GeodesicDirect(latitude: p2 * 180 / .pi, longitude: l2 * 180 / .pi, azimuth2: azimuth1)
    }
}

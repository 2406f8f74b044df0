#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The result of the inverse geodesic problem between two points.
public struct GeodesicInverse: Sendable, Hashable {
    /// Length of the geodesic in metres.
    public var distance: Double
    /// Forward azimuth at the first point, degrees clockwise from north, in [-180, 180].
    public var azimuth1: Double
    /// Forward azimuth at the second point, degrees clockwise from north, in [-180, 180].
    public var azimuth2: Double

    public init(distance: Double, azimuth1: Double, azimuth2: Double) {
        self.distance = distance
        self.azimuth1 = azimuth1
        self.azimuth2 = azimuth2
    }
}

/// The result of the direct geodesic problem.
public struct GeodesicDirect: Sendable, Hashable {
    /// Latitude of the end point in degrees, in [-90, 90].
    public var latitude: Double
    /// Longitude of the end point in degrees, in [-180, 180].
    public var longitude: Double
    /// Forward azimuth at the end point, degrees clockwise from north, in [-180, 180].
    public var azimuth2: Double

    public init(latitude: Double, longitude: Double, azimuth2: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.azimuth2 = azimuth2
    }
}

/// Geodesics on an ellipsoid of revolution.
///
/// Method: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013),
/// <https://doi.org/10.1007/s00190-012-0578-z> — the method of GeographicLib's `Geodesic` class: series in
/// the third flattening n to order 6, and for the inverse problem Newton's method on the azimuth at the
/// first point, started from the spherical solution or, for nearly antipodal points, from the solution of
/// the astroid problem.
///
/// Units and ranges: latitudes and longitudes in degrees (latitudes in [-90, 90]; any finite longitude,
/// reduced modulo 360), azimuths in degrees clockwise from north in [-180, 180], distances in metres.
/// A latitude outside [-90, 90] or any NaN input gives NaN results; nothing traps.
///
/// Accuracy: the series truncation error in distance is about 15 nm on WGS84, about 22 nm for
/// |f| = 1/150 and 30 nm for |f| = 1/50 (GeographicLib's published error table); on 10^6 WGS84 pairs our
/// distances are bit-for-bit those of GeographicLib C++ (see `Benchmarks/geodesic`). For |f| > 1/50 the
/// error grows quickly (micrometres to metres); such ellipsoids need an exact method instead.
public struct Geodesic: Sendable {
    /// Equatorial radius a, metres.
    public let equatorialRadius: Double
    /// Flattening f = (a - b) / a; negative for a prolate ellipsoid.
    public let flattening: Double

    // Derived constants, computed once in `init` (Karney 2013, section 2).
    @usableFromInline let f1: Double  // 1 - f
    @usableFromInline let e2: Double  // e^2 = f(2 - f)
    @usableFromInline let ep2: Double  // e'^2 = e^2 / (1 - e^2)
    @usableFromInline let n: Double  // third flattening f / (2 - f)
    @usableFromInline let b: Double  // polar semi-axis
    /// Threshold on sigma12 below which the spherical solution with a mean dn is used (see `inverseStart`).
    @usableFromInline let etol2: Double
    @usableFromInline let a3x: Series6
    @usableFromInline let c3x: C3Coefficients

    public init(equatorialRadius: Double, flattening: Double) {
        let a = equatorialRadius, f = flattening
        self.equatorialRadius = a
        self.flattening = f
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        n = f / (2 - f)
        b = a * f1
        // Relative error of the azimuth check for really short lines is sig12^2 |f| min(1, 1 - f/2) / 2;
        // setting it to epsilon (with a safety factor 0.1) gives this threshold (GeographicLib's etol2_).
        etol2 = 0.1 * AngleMath.tol2 / (max(0.001, abs(f)) * min(1.0, 1 - f / 2) / 2).squareRoot()
        a3x = GeodesicSeries.a3x(n: n)
        c3x = GeodesicSeries.c3x(n: n)
    }

    /// The WGS84 ellipsoid: a = 6378137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// A3(eps), the scale factor of the longitude integral I3 (Karney 2013, eq. 24).
    @inlinable @inline(__always)
    func a3(_ eps: Double) -> Double {
        ((((a3x.0 * eps + a3x.1) * eps + a3x.2) * eps + a3x.3) * eps + a3x.4) * eps + a3x.5
    }
}

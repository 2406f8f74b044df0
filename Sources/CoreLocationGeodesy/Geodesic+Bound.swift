#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Geodesic {
    /// Whether the geodesic between two points is at most `limit` metres long.
    ///
    /// Always the answer of `inverse(…).distance <= limit` (false when that distance is NaN), but found
    /// without solving the inverse problem whenever a spherical distance settles it, which is about forty
    /// times cheaper. Tests that ask "still within r of here?" for every fix use it.
    ///
    /// Why the spherical distance may settle it: a curve given by latitude and longitude has the length
    /// element ds² = M² dφ² + N² cos²φ dλ² on the ellipsoid (M and N its radii of curvature) and
    /// a² (dφ² + cos²φ dλ²) on the sphere of radius a. Everywhere M and N lie between the least and the
    /// greatest of a(1 − e²), a and a / √(1 − e²), so every curve's length on the ellipsoid is between
    /// `lower` and `upper` times its length on the sphere. Taking the sphere's shortest curve gives
    /// s ≤ upper · d, and the ellipsoid's shortest gives d ≤ s / lower, where d is the great-circle
    /// distance (haversine). Only when `limit` falls between lower · d and upper · d (within about
    /// ±0.7 % of d on WGS84) is the inverse problem solved. A relative margin of 10⁻⁹ covers the
    /// rounding of the haversine formula.
    public func isDistance(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double, atMost limit: Double
    ) -> Bool {
        if abs(latitude1) <= 90, abs(latitude2) <= 90, longitude1.isFinite, longitude2.isFinite, !limit.isNaN {
            let sphere = equatorialRadius * greatCircleAngle(latitude1, longitude1, latitude2, longitude2)
            if sphere * sphericalBounds.upper * (1 + 1e-9) <= limit { return true }
            if sphere * sphericalBounds.lower * (1 - 1e-9) > limit { return false }
        }
        let distance = inverse(latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2)
            .distance
        return distance <= limit
    }

    /// The least and greatest ratio of a curve's length on the ellipsoid to its length on the sphere of
    /// radius a (see `isDistance`).
    var sphericalBounds: (lower: Double, upper: Double) {
        let meridianAtEquator = 1 - e2, atPoles = 1 / (1 - e2).squareRoot()
        return (min(meridianAtEquator, 1, atPoles), max(meridianAtEquator, 1, atPoles))
    }

    /// The great-circle angle, radians, between two points on the unit sphere (haversine: accurate for
    /// small angles, where the cosine formula loses digits).
    private func greatCircleAngle(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let phi1 = lat1 * radians, phi2 = lat2 * radians
        let halfDPhi = sin((phi2 - phi1) / 2)
        let halfDLambda = sin((lon2 - lon1) * radians / 2)
        let h = halfDPhi * halfDPhi + cos(phi1) * cos(phi2) * halfDLambda * halfDLambda
        return 2 * asin(min(1, h.squareRoot()))
    }
}

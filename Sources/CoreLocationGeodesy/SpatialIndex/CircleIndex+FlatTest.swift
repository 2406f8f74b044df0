#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension CircleIndex {
    /// A cheap, conservative pre-test that decides most candidates without a geodesic.
    ///
    /// Method: the *flat distance* from the query point to a centre, in the tangent plane at the
    /// query point: `f = √((Δφ · M(φ))² + (Δλ · N(φ) cos φ)²)`, with Δφ, Δλ in degrees and M, N the
    /// WGS84 meridional and prime-vertical radii of curvature at the query latitude φ (per degree).
    ///
    /// Bound (B): for |φ| ≤ 80° and a geodesic distance d ≤ 25 km, |f − d| ≤ 0.01 d + 0.25 m.
    /// Its main term is the east scale taken at φ instead of along the path: a relative error of at
    /// most tan φ · |Δφ| ≈ 5.67 × 0.0039 rad ≈ 0.5 % at 80° and 25 km of latitude change (plus
    /// second-order curvature terms ~ (d/R)² ≈ 2e-5); `FlatTestBoundTests` checks (B) against
    /// Karney's geodesic at latitudes from −80° to 80°, all azimuths, across the antimeridian.
    ///
    /// Decisions, for a circle of radius r (allowing ≤ 5 cm for the rounding of the grid's
    /// fixed-point and Float32 records):
    /// - f < 10 km puts the centre in a coordinate box whose points all lie within
    ///   10 km × (1 + 1 %) + 10 km × (1 + 1 %) < 25 km of the query point, so (B) applies:
    ///   `f + 0.02 f + 0.5 < r` ⇒ d ≤ (f + 0.25) / 0.99 < r: **inside**;
    ///   `f − 0.02 f − 0.5 > r` ⇒ d ≥ 0.99 f − 0.25 > r: **outside**;
    /// - f ≥ 10 km and r ≤ 5 km: a centre at d ≤ 5 km would have f ≤ 1.01 × 5 km + 0.25 m < 10 km,
    ///   so d > 5 km ≥ r: **outside**;
    /// - anywhere (any latitude): d ≥ |Δφ| × 110 500 m (see `extent`), so `|Δφ| × 110 500 > r + 0.05`:
    ///   **outside**;
    /// - otherwise **unsure**: the geodesic decides.
    enum FlatTest {
        enum Verdict: Sendable {
            case inside, outside, unsure
        }

        /// A query point with its local scales.
        struct Point: Sendable {
            var latitude: Double
            var longitude: Double
            /// Metres per degree of latitude (M) and of longitude (N cos φ) at the point.
            var north: Double
            var east: Double
            /// Whether |φ| ≤ 80°, where bound (B) holds.
            var usable: Bool

            init(latitude: Double, longitude: Double) {
                self.latitude = latitude
                self.longitude = longitude
                let phi = latitude * Double.pi / 180
                let s = sin(phi)
                let w = (1 - CircleIndex.e2 * s * s).squareRoot()
                north = Double.pi / 180 * CircleIndex.a * (1 - CircleIndex.e2) / (w * w * w)
                east = Double.pi / 180 * CircleIndex.a / w * cos(phi)
                usable = abs(latitude) <= 80
            }

            /// The flat distance, metres, to a point `dLatitude`, `dLongitude` degrees away.
            @inline(__always)
            func flatDistance(dLatitude: Double, dLongitude: Double) -> Double {
                let dy = dLatitude * north
                let dx = dLongitude * east
                return (dx * dx + dy * dy).squareRoot()
            }

            /// Whether a centre `dLatitude`, `dLongitude` degrees from the point (point minus
            /// centre, longitude difference in [−180, 180]) is surely within, surely beyond, or
            /// too close to call at `radius` metres.
            @inline(__always)
            func decide(dLatitude: Double, dLongitude: Double, radius: Double) -> Verdict {
                if usable {
                    let dy = dLatitude * north
                    let dx = dLongitude * east
                    let f2 = dx * dx + dy * dy
                    if f2 < 1e8 {
                        let f = f2.squareRoot()
                        let bound = 0.02 * f + 0.5
                        if f + bound < radius { return .inside }
                        if f - bound > radius { return .outside }
                        return .unsure
                    }
                    if radius <= 5_000 { return .outside }
                }
                if abs(dLatitude) * CircleIndex.metresPerDegreeLatitude > radius + 0.05 { return .outside }
                return .unsure
            }
        }
    }
}

import Foundation
import Testing

@testable import CoreLocationGeodesy

/// `CircleIndex.FlatTest` decides most candidates without a geodesic; its answers are exact only
/// if its bound holds. These tables check the bound and the decisions against Karney's geodesic
/// (`Geodesic.wgs84`, checked against GeographicLib in the other suites).
struct FlatTestBoundTests {
    static let latitudes: [Double] =
        Array(stride(from: -80.0, through: 80, by: 2.5)) + [-79.999, -45.123, 0.001, 37.77, 79.999]
    static let longitudes: [Double] = [-180, 6.25, 179.9999]
    static let distances: [Double] = [0, 0.05, 0.3, 1, 7, 50, 150, 299, 1_000, 3_000, 9_999, 15_000, 25_000]

    /// Bound (B): for |φ| ≤ 80° and d ≤ 25 km, |f − d| ≤ 0.01 d + 0.25 m. Guards the scales M and
    /// N cos φ and the longitude wrap across ±180°.
    @Test("flat distance is within 1 % + 0.25 m of the geodesic up to 25 km at |latitude| <= 80")
    func flatDistanceBound() {
        var worst = 0.0
        for lat in Self.latitudes {
            for lon in Self.longitudes {
                let point = CircleIndex.FlatTest.Point(latitude: lat, longitude: lon)
                for azimuth in stride(from: 0.0, to: 360, by: 15) {
                    for d in Self.distances {
                        let c = Geodesic.wgs84.direct(latitude1: lat, longitude1: lon, azimuth1: azimuth, distance: d)
                        let f = point.flatDistance(
                            dLatitude: lat - c.latitude, dLongitude: Self.wrapped(lon - c.longitude)
                        )
                        worst = max(worst, abs(f - d) - 0.01 * d)
                        #expect(abs(f - d) <= 0.01 * d + 0.25, "φ \(lat) λ \(lon) azimuth \(azimuth) d \(d): f \(f)")
                    }
                }
            }
        }
        #expect(worst <= 0.25)
    }

    /// Every verdict that is not `.unsure` must equal the geodesic's, for radii just inside and
    /// just outside the distance, at every latitude including the poles (where only the meridian
    /// rule may decide) and across the antimeridian.
    @Test("verdicts agree with the geodesic near the boundary, poles and antimeridian included")
    func verdictsAgreeWithGeodesic() {
        let latitudes = Self.latitudes + [-90, -89.99, -85, -80.001, 80.001, 84, 89.5, 89.999, 90]
        var decided = 0
        for lat in latitudes {
            for lon in Self.longitudes {
                let point = CircleIndex.FlatTest.Point(latitude: lat, longitude: lon)
                for azimuth in stride(from: 0.0, to: 360, by: 30) {
                    for d in Self.distances + [40_000, 200_000] {
                        let c = Geodesic.wgs84.direct(latitude1: lat, longitude1: lon, azimuth1: azimuth, distance: d)
                        let exact = Geodesic.wgs84.inverse(
                            latitude1: c.latitude, longitude1: c.longitude, latitude2: lat, longitude2: lon
                        ).distance
                        let radii = [
                            exact * 0.9, exact * 0.97, exact - 0.6, exact, exact + 0.6, exact * 1.03, exact * 1.1,
                        ]
                        for radius in radii where radius >= 0 {
                            let verdict = point.decide(
                                dLatitude: lat - c.latitude, dLongitude: Self.wrapped(lon - c.longitude), radius: radius
                            )
                            switch verdict {
                            case .inside:
                                decided += 1
                                #expect(exact <= radius, "φ \(lat) λ \(lon) az \(azimuth) d \(d) r \(radius): inside?")
                            case .outside:
                                decided += 1
                                #expect(exact > radius, "φ \(lat) λ \(lon) az \(azimuth) d \(d) r \(radius): outside?")
                            case .unsure: break
                            }
                        }
                    }
                }
            }
        }
        #expect(decided > 5_000, "the pre-test should decide most of these")
    }

    /// A regression the bound must catch: the east scale taken at the equator instead of φ is off
    /// by 1 − cos φ, far beyond 1 % at 45°.
    @Test("a wrong east scale breaks the bound (the check can fail)")
    func wrongScaleIsCaught() {
        var point = CircleIndex.FlatTest.Point(latitude: 45, longitude: 6)
        point.east = CircleIndex.FlatTest.Point(latitude: 0, longitude: 6).east
        let c = Geodesic.wgs84.direct(latitude1: 45, longitude1: 6, azimuth1: 90, distance: 1_000)
        let f = point.flatDistance(dLatitude: 45 - c.latitude, dLongitude: 6 - c.longitude)
        #expect(abs(f - 1_000) > 0.01 * 1_000 + 0.25)
    }

    static func wrapped(_ dLon: Double) -> Double {
        dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon
    }
}

import Foundation
import Testing

@testable import CoreLocationGeodesy

/// `Geodesic.isDistance(…atMost:)` must give exactly the inverse problem's answer; its spherical short
/// cut is only right if the bounds proved in its comment hold. These checks put the limit just inside
/// and just outside the true distance (within the ±0.7 % band where a wrong bound would answer wrongly),
/// everywhere on the globe, on WGS84 and on ellipsoids of other flattenings.
struct GeodesicBoundTests {
    static let ellipsoids: [Geodesic] = [
        .wgs84, Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 150),
        Geodesic(equatorialRadius: 6_378_137, flattening: -1 / 150),
    ]

    @Test("agrees with the inverse problem just inside and just outside the distance, poles and antimeridian included")
    func agreesWithInverse() {
        var generator = SplitMix64(seed: 20_261_124)
        for geodesic in Self.ellipsoids {
            for _ in 0..<20_000 {
                let latitude = Double(generator.next() % 180_001) / 1000 - 90
                let longitude = Double(generator.next() % 360_001) / 1000 - 180
                let azimuth = Double(generator.next() % 36_000) / 100
                // Distances from a centimetre to 10 000 km, spread over the decades.
                let distance = pow(10, Double(generator.next() % 9_000) / 1000 - 2)
                let end = geodesic.direct(latitude1: latitude, longitude1: longitude, azimuth1: azimuth, distance: distance)
                let exact = geodesic.inverse(
                    latitude1: latitude, longitude1: longitude, latitude2: end.latitude, longitude2: end.longitude
                ).distance
                for factor in [0.99, 0.995, 0.9999, 1.0001, 1.005, 1.01, 0.5, 2] {
                    let limit = exact * factor
                    let answer = geodesic.isDistance(
                        latitude1: latitude, longitude1: longitude, latitude2: end.latitude, longitude2: end.longitude,
                        atMost: limit)
                    #expect(answer == (exact <= limit), "(\(latitude), \(longitude)) → \(distance) m at \(azimuth)°, ×\(factor)")
                }
            }
        }
    }

    @Test("the bounds are those of the radii of curvature: 1 − e² and 1/√(1 − e²) on WGS84")
    func boundsOfWGS84() {
        let bounds = Geodesic.wgs84.sphericalBounds
        // e² of WGS84 = 0.00669437999014 (NIMA TR8350.2, table 3.3).
        #expect(abs(bounds.lower - (1 - 0.00669437999014)) < 1e-12)
        #expect(abs(bounds.upper - 1 / (1 - 0.00669437999014).squareRoot()) < 1e-12)
    }

    @Test("bad input answers as the inverse problem does: NaN is never within a limit")
    func badInput() {
        let g = Geodesic.wgs84
        #expect(!g.isDistance(latitude1: .nan, longitude1: 0, latitude2: 0, longitude2: 0, atMost: 1e9))
        #expect(!g.isDistance(latitude1: 0, longitude1: 0, latitude2: 91, longitude2: 0, atMost: 1e9))
        #expect(!g.isDistance(latitude1: 0, longitude1: .infinity, latitude2: 0, longitude2: 0, atMost: 1e9))
        #expect(!g.isDistance(latitude1: 0, longitude1: 0, latitude2: 0, longitude2: 0, atMost: .nan))
        #expect(g.isDistance(latitude1: 10, longitude1: 20, latitude2: 10, longitude2: 20, atMost: 0))
        #expect(g.isDistance(latitude1: 0, longitude1: 179.9999, latitude2: 0, longitude2: -179.9999, atMost: 23))
        #expect(!g.isDistance(latitude1: 0, longitude1: 179.9999, latitude2: 0, longitude2: -179.9999, atMost: 22))
    }
}

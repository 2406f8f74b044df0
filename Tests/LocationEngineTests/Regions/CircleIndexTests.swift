import Foundation
import Geodesy
import Testing

/// The index must answer exactly as a brute-force geodesic scan (the oracle: `Geodesic.wgs84`,
/// itself checked against GeographicLib in GeodesyTests), everywhere: poles, the antimeridian,
/// tiny and 1000 km circles, points on the boundary.
@Suite struct CircleIndexTests {
    struct Circle { var lat, lon, radius: Double }

    static func bruteForce(_ circles: [Circle?], _ lat: Double, _ lon: Double) -> Set<UInt32> {
        var found: Set<UInt32> = []
        for (i, c) in circles.enumerated() {
            guard let c else { continue }
            let d = Geodesic.wgs84.inverse(latitude1: c.lat, longitude1: c.lon, latitude2: lat, longitude2: lon)
                .distance
            if d <= c.radius { found.insert(UInt32(i)) }
        }
        return found
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func matchesBruteForceEverywhere(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var index = CircleIndex()
        var circles: [Circle?] = []
        for _ in 0..<800 {
            // Clustered near a few places (so circles overlap), plus scattered ones near poles and ±180°.
            let anchor = [(45.0, 6.0), (89.5, 0.0), (-10.0, 179.99), (0.0, -179.99)][Int.random(in: 0..<4, using: &rng)]
            let lat = max(-90, min(90, anchor.0 + Double.random(in: -1...1, using: &rng)))
            let lon = anchor.1 + Double.random(in: -1...1, using: &rng)
            let radius =
                [5.0, 150, 2000, 50_000, 1_000_000][Int.random(in: 0..<5, using: &rng)]
                * Double.random(in: 0.5...1, using: &rng)
            let handle = index.insert(latitude: lat, longitude: lon, radius: radius)
            #expect(handle == UInt32(circles.count))
            circles.append(Circle(lat: lat, lon: lon > 180 ? lon - 360 : lon, radius: radius))
        }
        // Remove a tenth, to exercise the chains and handle reuse.
        for i in stride(from: 0, to: circles.count, by: 10) {
            index.remove(UInt32(i))
            circles[i] = nil
        }
        for q in 0..<400 {
            let anchor = [(45.0, 6.0), (89.5, 0.0), (-10.0, 179.99), (0.0, -179.99)][q % 4]
            let lat = max(-90, min(90, anchor.0 + Double.random(in: -1.5...1.5, using: &rng)))
            let lon = anchor.1 + Double.random(in: -1.5...1.5, using: &rng)
            var result: [UInt32] = []
            index.circles(containingLatitude: lat, longitude: lon, into: &result)
            #expect(
                Set(result) == Self.bruteForce(circles, lat, lon > 180 ? lon - 360 : lon), "query \(q) at \(lat),\(lon)"
            )
            #expect(result.count == Set(result).count, "no duplicates")
        }
    }

    @Test func boundaryIsIncludedAndJustOutsideIsNot() {
        var index = CircleIndex()
        let handle = index.insert(latitude: 45, longitude: 6, radius: 100)
        for azimuth in stride(from: 0.0, to: 360, by: 15) {
            let on = Geodesic.wgs84.direct(latitude1: 45, longitude1: 6, azimuth1: azimuth, distance: 99.999)
            let off = Geodesic.wgs84.direct(latitude1: 45, longitude1: 6, azimuth1: azimuth, distance: 100.001)
            var a: [UInt32] = []
            var b: [UInt32] = []
            index.circles(containingLatitude: on.latitude, longitude: on.longitude, into: &a)
            index.circles(containingLatitude: off.latitude, longitude: off.longitude, into: &b)
            #expect(a == [handle].compactMap { $0 })
            #expect(b.isEmpty)
        }
    }

    @Test func badInputIsRefusedOrFindsNothing() {
        var index = CircleIndex()
        #expect(index.insert(latitude: .nan, longitude: 0, radius: 1) == nil)
        #expect(index.insert(latitude: 91, longitude: 0, radius: 1) == nil)
        #expect(index.insert(latitude: 0, longitude: 0, radius: -1) == nil)
        #expect(index.insert(latitude: 0, longitude: .infinity, radius: 1) == nil)
        #expect(index.count == 0)
        _ = index.insert(latitude: 0, longitude: 0, radius: 1000)
        var result: [UInt32] = []
        index.circles(containingLatitude: .nan, longitude: 0, into: &result)
        index.circles(containingLatitude: 0, longitude: .nan, into: &result)
        #expect(result.isEmpty)
        index.remove(42)
        #expect(index.count == 1)
    }

    /// 10^5 circles of 100–300 m over a 0.5° × 0.5° city (the 10^6 case runs in the benchmark):
    /// memory per circle stays under the 128-byte budget.
    @Test func memoryPerCircleIsWithinBudget() {
        var rng = SeededGenerator(seed: 7)
        var index = CircleIndex()
        let n = 100_000
        index.reserveCapacity(n)
        for _ in 0..<n {
            _ = index.insert(
                latitude: 45 + Double.random(in: 0..<0.5, using: &rng),
                longitude: 6 + Double.random(in: 0..<0.5, using: &rng),
                radius: Double.random(in: 100...300, using: &rng)
            )
        }
        let perCircle = Double(index.estimatedBytes) / Double(n)
        #expect(perCircle <= 128, "\(perCircle) bytes per circle")
    }
}

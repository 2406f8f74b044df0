import Foundation
import Testing

@testable import CoreLocationSources

@Suite("Derived speed and course")
struct RouteKinematicsTests {
    /// Along the equator the geodesic is the equator itself: distance = a·Δλ on WGS84 (and on the
    /// placeholder sphere of radius a) = 6378137 m × 0.001° × π/180 = 111.319490793 m.
    @Test("two points 0.001° apart on the equator, 10 s apart")
    func equator() {
        let route = equatorRoute(count: 2)
        let distance = 6_378_137 * 0.001 * Double.pi / 180
        for index in 0..<2 {
            let motion = route.kinematics(at: index)
            #expect(abs(motion.speed - distance / 10) < 1e-6)  // 11.1319 m/s
            #expect(abs(motion.course - 90) < 1e-9)
            // √2 × 0.5 m / 10 s, and atan(that / speed).
            #expect(abs(motion.speedAccuracy - 0.070710678) < 1e-8)
            #expect(abs(motion.courseAccuracy - atan(0.070710678 / (distance / 10)) * 180 / .pi) < 1e-6)
        }
    }

    @Test("course west and south normalised to [0, 360)")
    func directions() {
        let west = SimulatedRoute(
            name: "w",
            points: [RoutePoint(latitude: 0, longitude: 0.001), RoutePoint(latitude: 0, longitude: 0)]
        )
        #expect(abs(west.kinematics(at: 0).course - 270) < 1e-9)
        let south = SimulatedRoute(
            name: "s",
            points: [RoutePoint(latitude: 0.001, longitude: 5), RoutePoint(latitude: 0, longitude: 5)]
        )
        #expect(abs(south.kinematics(at: 1).course - 180) < 1e-9)
    }

    @Test("a point that does not move has speed 0 and no course; a single point knows nothing")
    func stationaryAndSingle() {
        let start = Date(timeIntervalSince1970: 0)
        let still = SimulatedRoute(
            name: "still",
            points: [
                RoutePoint(latitude: 45, longitude: 7, time: start),
                RoutePoint(latitude: 45, longitude: 7, time: start.addingTimeInterval(5)),
            ]
        )
        let motion = still.kinematics(at: 0)
        #expect(motion.speed == 0)
        #expect(motion.course == -1 && motion.courseAccuracy == -1)
        let single = SimulatedRoute(name: "one", points: [RoutePoint(latitude: 1, longitude: 2)])
        let unknown = RouteKinematics(speed: -1, speedAccuracy: -1, course: -1, courseAccuracy: -1)
        #expect(single.kinematics(at: 0) == unknown)
    }

    @Test("untimed points are paced at 1.4 m/s, at least 1 s apart")
    func untimed() {
        let route = SimulatedRoute(
            name: "bare",
            points: [
                RoutePoint(latitude: 0, longitude: 0), RoutePoint(latitude: 0, longitude: 0.001),
                RoutePoint(latitude: 0, longitude: 0.001),
            ]
        )
        let distance = 6_378_137 * 0.001 * Double.pi / 180
        #expect(abs(route.offsets[1] - distance / 1.4) < 1e-9)
        #expect(abs(route.offsets[2] - route.offsets[1] - 1) < 1e-12)
        #expect(abs(route.kinematics(at: 0).speed - 1.4) < 1e-9)
    }
}

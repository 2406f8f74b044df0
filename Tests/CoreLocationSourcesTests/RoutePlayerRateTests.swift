import Foundation
import CoreLocationEngine
import CoreLocationGeodesy
import Testing

@testable import CoreLocationSources

/// `RoutePlayer(rate:)`: a fix every 1/rate recorded seconds, interpolated like a receiver at that rate
/// (issue 16 item 7), and `recordedTimes` (decision 0020).
@Suite struct RoutePlayerRateTests {
    let stamp = Date(timeIntervalSince1970: 42)

    /// Points 111.3 m and 10 s apart: at 1 Hz, 31 fixes for 3 segments (0…30 s), every 10th the
    /// recorded point exactly, the others on the geodesic at the fraction of the segment's time.
    @Test func oneHertzInterpolatesAlongTheGeodesic() throws {
        let route = equatorRoute(count: 4)
        var player = try RoutePlayer(route: route, rate: 1)
        let fixes = player.advance(to: 1_000, timestamp: stamp)
        #expect(fixes.count == 31)
        #expect(player.isFinished)
        for (k, fix) in fixes.enumerated() {
            // Along the equator the geodesic is the equator: longitude is linear in the fraction.
            #expect(abs(fix.longitude - Double(k) * 0.0001) < 1e-12, "fix \(k)")
            #expect(abs(fix.latitude) < 1e-12)
            #expect(fix.isSimulated && fix.horizontalAccuracy == 5)
            #expect(abs(fix.speed - 11.131949079) < 1e-6 && abs(fix.course - 90) < 1e-9, "fix \(k)")
            #expect(fix.altitude == 12.5)
        }
        // The recorded points come out exactly as without a rate.
        var raw = try RoutePlayer(route: route)
        let recorded = raw.advance(to: 1_000, timestamp: stamp)
        #expect(stride(from: 0, to: 31, by: 10).map { fixes[$0] } == recorded)
    }

    /// Off the equator, an interpolated fix lies on the geodesic between its neighbours: its
    /// distances to both add up to the segment's length, in the ratio of the times.
    @Test func interpolatedFixesLieOnTheSegmentAtTheirTime() throws {
        let start = Date(timeIntervalSince1970: 1_000)
        let route = SimulatedRoute(
            name: "diagonal",
            points: [
                RoutePoint(latitude: 45.0, longitude: 4.8, time: start),
                RoutePoint(latitude: 45.01, longitude: 4.82, time: start.addingTimeInterval(13)),
            ])
        var player = try RoutePlayer(route: route, speed: .infinity, rate: 2)
        let fixes = player.advance(to: 0, timestamp: stamp)
        // Every 0.5 s from 0 to 12.5, then the end at 13 s: 27 fixes.
        #expect(fixes.count == 27)
        let whole = Geodesic.wgs84.inverse(latitude1: 45, longitude1: 4.8, latitude2: 45.01, longitude2: 4.82)
        for (k, fix) in fixes.enumerated() {
            let t = k == 26 ? 13 : Double(k) * 0.5
            let a = Geodesic.wgs84.inverse(
                latitude1: 45, longitude1: 4.8, latitude2: fix.latitude, longitude2: fix.longitude)
            #expect(abs(a.distance - whole.distance * t / 13) < 1e-6, "fix \(k)")
            #expect(fix.timestamp == start.addingTimeInterval(t), "at infinite speed the recorded time")
            #expect(fix.verticalAccuracy == -1, "no elevation in the recording")
        }
        #expect(fixes.last?.latitude == 45.01 && fixes.last?.longitude == 4.82)
    }

    @Test func recordedTimesAtAFiniteSpeed() throws {
        let route = equatorRoute(count: 3)
        var player = try RoutePlayer(route: route, speed: 5, rate: 1, recordedTimes: true)
        let fixes = player.advance(to: 2, timestamp: stamp)
        // 2 playback seconds at 5× are 10 recorded seconds: instants 0…10.
        #expect(fixes.count == 11)
        let start = try #require(route.recordedStart)
        #expect(fixes.enumerated().allSatisfy { $0.element.timestamp == start.addingTimeInterval(Double($0.offset)) })
    }

    @Test(arguments: [0.0, -1, .nan, .infinity])
    func aRateMustBePositiveAndFinite(rate: Double) {
        #expect(throws: SimulationError.self) { try RoutePlayer(route: equatorRoute(count: 2), rate: rate) }
    }
}

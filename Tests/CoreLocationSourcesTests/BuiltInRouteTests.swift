import Foundation
import Testing

@testable import CoreLocationSources

@Suite("Built-in routes")
struct BuiltInRouteTests {
    /// Expected values read from the source GPX files by `scripts/routes-extract.py --summary`
    /// (Python's XML parser, independent of ours); coordinates rounded to 1e-6° as stored.
    struct Expected: Sendable, CustomStringConvertible {
        var name: String
        var count: Int
        var latitudes: ClosedRange<Double>
        var longitudes: ClosedRange<Double>
        var first: (Double, Double)
        var last: (Double, Double)
        var start: Double
        var duration: Double
        var description: String { name }
    }

    static let expected: [Expected] = [
        Expected(
            name: "run", count: 391, latitudes: 45.831750...45.839090, longitudes: 4.816130...4.827610,
            first: (45.839090, 4.827610), last: (45.835540, 4.817200),
            start: 1_603_957_718, duration: 780  // 2020-10-29T07:48:38Z
        ),
        Expected(
            name: "bike", count: 737, latitudes: 45.787920...45.832660, longitudes: 4.779720...4.809660,
            first: (45.829310, 4.788450), last: (45.787920, 4.809660),
            start: 1_603_966_312.999, duration: 1474  // 2020-10-29T10:11:52.999Z
        ),
        Expected(
            name: "drive", count: 104, latitudes: 45.272476...45.280915, longitudes: 13.711518...13.722445,
            first: (45.273519, 13.714210), last: (45.273335, 13.713997),
            start: 1_608_272_150, duration: 514  // 2020-12-18T06:15:50Z
        ),
    ]

    @Test("names for help text")
    func names() {
        #expect(BuiltInRoute.names == ["run", "bike", "drive"])
        #expect(BuiltInRoute.all.allSatisfy { !$0.summary.isEmpty })
        #expect(BuiltInRoute.named("walk") == nil)
    }

    @Test("decodes to the source track's count, bounding box, ends and times", arguments: expected)
    func decodes(expected: Expected) throws {
        let route = try #require(BuiltInRoute.named(expected.name))
        let tolerance = 1e-9  // decimal micro-degrees → Double, nothing else
        #expect(route.points.count == expected.count)
        let latitudes = route.points.map(\.latitude), longitudes = route.points.map(\.longitude)
        #expect(abs((latitudes.min() ?? 0) - expected.latitudes.lowerBound) < tolerance)
        #expect(abs((latitudes.max() ?? 0) - expected.latitudes.upperBound) < tolerance)
        #expect(abs((longitudes.min() ?? 0) - expected.longitudes.lowerBound) < tolerance)
        #expect(abs((longitudes.max() ?? 0) - expected.longitudes.upperBound) < tolerance)
        #expect(abs(route.points[0].latitude - expected.first.0) < tolerance)
        #expect(abs(route.points[0].longitude - expected.first.1) < tolerance)
        #expect(abs(route.points[expected.count - 1].latitude - expected.last.0) < tolerance)
        #expect(abs(route.points[expected.count - 1].longitude - expected.last.1) < tolerance)
        #expect(abs((route.points[0].time?.timeIntervalSince1970 ?? 0) - expected.start) < 1e-3)
        #expect(abs(route.duration - expected.duration) < 1e-3)
        #expect(route.points.allSatisfy { $0.elevation != nil })
        #expect(zip(route.offsets, route.offsets.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("drive starts where the recorded file does (cross-check with the committed GPX excerpt)")
    func driveMatchesFixture() throws {
        let recorded = try GPXParser().points(from: try fixture("around-visnjan-with-car-excerpt.gpx"))
        let drive = try #require(BuiltInRoute.named("drive"))
        for (a, b) in zip(recorded, drive.points) {
            #expect(abs(a.latitude - b.latitude) <= 5e-7 && abs(a.longitude - b.longitude) <= 5e-7)
            #expect(a.elevation == b.elevation && a.time == b.time)
        }
    }

    @Test("speeds fit the route kinds (median of moving segments)")
    func paces() throws {
        func medianSpeed(_ name: String) throws -> Double {
            let route = try #require(BuiltInRoute.named(name))
            let speeds = route.points.indices.map { route.kinematics(at: $0).speed }.filter { $0 > 0.5 }.sorted()
            return speeds[speeds.count / 2] * 3.6
        }
        #expect((6...12).contains(try medianSpeed("run")))
        #expect((12...30).contains(try medianSpeed("bike")))
        #expect((25...80).contains(try medianSpeed("drive")))
    }

    @Test("damaged data is reported, not trapped on")
    func damaged() {
        #expect(throws: SimulationError.self) { try BuiltInRoute.decode("v1 0 1,2", name: "x") }
        #expect(throws: SimulationError.self) { try BuiltInRoute.decode("v2 0 1,2,3,4", name: "x") }
        #expect(throws: SimulationError.self) { try BuiltInRoute.decode("v1 0 1,2,a,4", name: "x") }
    }
}

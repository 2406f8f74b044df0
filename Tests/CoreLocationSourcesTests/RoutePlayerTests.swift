import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

@Suite("Route player (pure)")
struct RoutePlayerTests {
    let stamp = Date(timeIntervalSince1970: 42)

    @Test("emits exactly the points due, at recorded pace")
    func recordedPace() throws {
        var player = try RoutePlayer(route: equatorRoute(count: 4))
        #expect(player.nextDue == 0)
        #expect(player.advance(to: 0, timestamp: stamp).map(\.longitude) == [0])
        #expect(player.advance(to: 9.999, timestamp: stamp).isEmpty)
        #expect(player.nextDue == 10)
        let fixes = player.advance(to: 25, timestamp: stamp)
        #expect(fixes.map(\.longitude) == [0.001, 0.002])
        #expect(fixes.allSatisfy { $0.timestamp == stamp && $0.isSimulated })
        #expect(player.advance(to: 30, timestamp: stamp).count == 1)
        #expect(player.isFinished && player.nextDue == nil)
        #expect(player.advance(to: 1000, timestamp: stamp).isEmpty)
    }

    @Test("fix values: accuracies, altitude from ele, derived speed and course")
    func fixValues() throws {
        var player = try RoutePlayer(route: equatorRoute(count: 2))
        let fix = try #require(player.advance(to: 0, timestamp: stamp).first)
        #expect(fix.horizontalAccuracy == 5 && fix.verticalAccuracy == 8)
        // EGM96 N at (0, 0) is 17.1616 m (PROJ: cct +proj=vgridshift +grids=egm96_15.gtx +multiplier=1).
        #expect(fix.altitude == 12.5 && abs(fix.ellipsoidalAltitude - (12.5 + 17.1616)) < 0.005)
        #expect(abs(fix.speed - 11.131949079) < 1e-6 && abs(fix.course - 90) < 1e-9)
        #expect(!fix.isFromAccessory && fix.floor == nil)
        var bare = try RoutePlayer(route: equatorRoute(count: 2, elevation: nil))
        #expect(bare.advance(to: 0, timestamp: stamp).first?.verticalAccuracy == -1)
    }

    @Test("speed ×10 reaches each point 10× sooner; .infinity emits everything at once in order")
    func speeds() throws {
        var fast = try RoutePlayer(route: equatorRoute(count: 5), speed: 10)
        #expect(fast.advance(to: 3.0, timestamp: stamp).count == 4)  // due 0, 1, 2, 3
        #expect(fast.nextDue == 4)
        var instant = try RoutePlayer(route: equatorRoute(count: 5), speed: .infinity, loops: true)
        #expect(instant.advance(to: 0, timestamp: stamp).map(\.longitude) == [0, 0.001, 0.002, 0.003, 0.004])
        #expect(instant.isFinished && !instant.loops)
    }

    @Test("looping restarts after the route's duration plus 1 s")
    func looping() throws {
        var player = try RoutePlayer(route: equatorRoute(count: 2), loops: true)
        #expect(player.advance(to: 10, timestamp: stamp).count == 2)
        #expect(player.nextDue == 11)
        #expect(player.advance(to: 21, timestamp: stamp).map(\.longitude) == [0, 0.001])
        #expect(!player.isFinished)
    }

    @Test("speed must be greater than 0", arguments: [0.0, -1.0, Double.nan, -Double.infinity])
    func invalidSpeed(speed: Double) {
        #expect(throws: SimulationError.self) { try RoutePlayer(route: equatorRoute(count: 2), speed: speed) }
    }
}

import Foundation
import Testing

@testable import CoreLocationSources

@Suite("--simulate argument")
struct SimulationScenarioTests {
    @Test("LAT,LON")
    func coordinates() throws {
        #expect(try SimulationScenario.parse("48.8584,2.2945") == .fixed(latitude: 48.8584, longitude: 2.2945))
        let sydney = SimulationScenario.fixed(latitude: -33.8568, longitude: 151.2153)
        #expect(try SimulationScenario.parse(" -33.8568 , 151.2153 ") == sydney)
        #expect(try SimulationScenario.parse("90,-180") == .fixed(latitude: 90, longitude: -180))
    }

    @Test("built-in names, any case")
    func names() throws {
        guard case .route(let route) = try SimulationScenario.parse("DRIVE") else {
            Issue.record("not a route")
            return
        }
        #expect(route.name == "drive" && route.points.count == 104)
        #expect(try SimulationScenario.parse("run") == .route(try #require(BuiltInRoute.named("run"))))
    }

    @Test("a GPX path")
    func path() throws {
        guard case .route(let route) = try SimulationScenario.parse(fixturePath("around-visnjan-with-car-excerpt.gpx"))
        else {
            Issue.record("not a route")
            return
        }
        #expect(route.name == "around-visnjan-with-car-excerpt")
        #expect(route.points.count == 12)
    }

    @Test(
        "bad arguments give a clear error",
        arguments: [
            ("garbage", SimulationError.Code.unknownScenario, "garbage"),
            ("", .unknownScenario, "run, bike, drive"),
            ("91,0", .invalidCoordinate, "latitude 91"),
            ("0,180.5", .invalidCoordinate, "longitude 180.5"),
            ("48.8,abc", .invalidCoordinate, "longitude \"abc\""),
            ("nan,0", .invalidCoordinate, "latitude \"nan\""),
            ("1,2,3", .invalidCoordinate, "LAT,LON"),
            ("/nonexistent/route.gpx", .unreadableFile, "/nonexistent/route.gpx"),
        ] as [(String, SimulationError.Code, String)]
    )
    func errors(argument: String, code: SimulationError.Code, mentions: String) {
        do {
            let scenario = try SimulationScenario.parse(argument)
            Issue.record("\(argument) parsed as \(scenario)")
        } catch let error as SimulationError {
            #expect(error.code == code, "\(error)")
            #expect(error.description.contains(mentions), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("an invalid GPX file carries the GPX error and its line")
    func invalidFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("<gpx>\n<wpt lat=\"95\" lon=\"0\"/>\n</gpx>".utf8).write(to: url)
        do {
            _ = try SimulationScenario.parse(url.path)
            Issue.record("parsed")
        } catch let error as SimulationError {
            #expect(error.code == .invalidGPX)
            let gpx = try #require(error.underlying as? GPXError)
            #expect(gpx.code == .coordinateOutOfRange && gpx.line == 2)
            #expect(error.description.contains("line 2"))
        }
    }
}

import Foundation
import Testing

@Suite struct LocateTests {
    @Test func jsonGivesTheSimulatedCoordinate() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("locate", "--simulate", "48.8584,2.2945", "--format", "json")
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.count == 1, "\(run)")
        let object = try jsonObject(try #require(run.lines.first))
        #expect(object["latitude"] as? Double == 48.8584)
        #expect(object["longitude"] as? Double == 2.2945)
        #expect(object["simulated"] as? Bool == true)
        let accuracy = try #require(object["horizontalAccuracy"] as? Double)
        #expect(accuracy > 0 && accuracy < 100, "a simulated fixed point is precise: \(accuracy)")
    }
}

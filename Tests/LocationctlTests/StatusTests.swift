import Foundation
import Testing

@Suite struct StatusTests {
    @Test func probeReportsThePoweredSimulatedSource() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.locationctl("authorize", "locationctl", "when-in-use").status == 0)
        let run = try await sandbox.locationctl(
            "status", "--simulate", "48.8584,2.2945", "--probe", "1.5", "--format", "json"
        )
        #expect(run.status == 0, "\(run)")
        let status = try jsonObject(run.stdout)
        let sources = try #require(status["sources"] as? [[String: Any]], "\(run)")
        #expect(sources.count == 1, "\(run)")
        let source = try #require(sources.first)
        #expect(source["isPowered"] as? Bool == true, "\(run)")
        #expect(source["isAvailable"] as? Bool == true, "\(run)")
        #expect((source["fixCount"] as? Int).map { $0 >= 1 } == true, "\(run)")
        let onTime = try #require(source["onTime"] as? Double, "\(run)")
        // Powered for the whole probe: about 1.5 s, never more than the process lived.
        #expect(onTime > 0 && onTime <= run.duration, "\(run)")
        let descriptor = try #require(source["descriptor"] as? [String: Any])
        #expect(descriptor["isSimulated"] as? Bool == true)
        let lastFix = try #require(source["lastFix"] as? [String: Any], "\(run)")
        #expect(lastFix["latitude"] as? Double == 48.8584 && lastFix["longitude"] as? Double == 2.2945)
    }

    /// The probe powers sources without asking, so an app that is not authorized sees no position.
    @Test func positionsStayPrivateWithoutAuthorization() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.locationctl("authorize", "locationctl", "deny").status == 0)
        let run = try await sandbox.locationctl(
            "status", "--simulate", "48.8584,2.2945", "--probe", "1.5", "--format", "json"
        )
        #expect(run.status == 0, "\(run)")
        let status = try jsonObject(run.stdout)
        let source = try #require((status["sources"] as? [[String: Any]])?.first, "\(run)")
        #expect((source["fixCount"] as? Int).map { $0 >= 1 } == true, "\(run)")
        #expect(source["lastFix"] == nil, "\(run)")
        #expect(!run.stdout.contains("48.8584"), "\(run)")
    }
}

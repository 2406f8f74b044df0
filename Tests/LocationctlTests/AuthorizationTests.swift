import Foundation
import Testing

/// `locationctl authorize` plays the Settings app; `locate` obeys what it stored.
@Suite struct AuthorizationTests {
    static let locateParis = ["locate", "--simulate", "48.8584,2.2945", "--format", "json"]

    @Test func denyThenResetThenAllowAgain() async throws {
        let sandbox = try Sandbox()
        let deny = try await sandbox.locationctl("authorize", "locationctl", "deny")
        #expect(deny.status == 0, "\(deny)")

        let denied = try await sandbox.run(.locationctl, Self.locateParis)
        #expect(denied.status == 77, "\(denied)")
        #expect(denied.stdout.isEmpty, "\(denied)")
        #expect(denied.stderr.contains("locationctl authorize locationctl when-in-use"), "\(denied)")

        let list = try await sandbox.locationctl("authorize", "--list")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("locationctl  denied"), "\(list)")

        let reset = try await sandbox.locationctl("authorize", "locationctl", "reset")
        #expect(reset.status == 0, "\(reset)")
        let again = try await sandbox.run(.locationctl, Self.locateParis)
        #expect(again.status == 0, "\(again)")
        let object = try jsonObject(again.stdout)
        #expect(object["latitude"] as? Double == 48.8584 && object["longitude"] as? Double == 2.2945, "\(again)")

        let emptyList = try await sandbox.locationctl("authorize", "--list")
        #expect(emptyList.stdout.contains("No decisions stored."), "\(emptyList)")
    }

    @Test func reducedAccuracyCoarsensTheLocation() async throws {
        let sandbox = try Sandbox()
        let grant = try await sandbox.locationctl("authorize", "locationctl", "when-in-use", "--reduced")
        #expect(grant.status == 0, "\(grant)")
        let run = try await sandbox.run(.locationctl, Self.locateParis)
        #expect(run.status == 0, "\(run)")
        let object = try jsonObject(run.stdout)
        let latitude = try #require(object["latitude"] as? Double)
        let longitude = try #require(object["longitude"] as? Double)
        #expect(latitude != 48.8584 || longitude != 2.2945, "\(run)")
        let accuracy = try #require(object["horizontalAccuracy"] as? Double)
        #expect(accuracy >= 1000, "\(run)")
        #expect(object["speed"] as? Double == -1, "\(run)")
        #expect(object["course"] as? Double == -1, "\(run)")
        // Coarsened, not invented: still in the same town.
        #expect(haversineDistance((latitude, longitude), (48.8584, 2.2945)) < 20_000, "\(run)")
    }

    @Test func defaultPolicyDenyAppliesWithoutADecision() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(.locationctl, Self.locateParis, extra: ["CORELOCATION_DEFAULT_POLICY": "deny"])
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.contains("locationctl authorize locationctl when-in-use"), "\(run)")
        // A default policy decides for the run only: nothing is stored.
        let list = try await sandbox.locationctl("authorize", "--list")
        #expect(list.stdout.contains("No decisions stored."), "\(list)")
    }

    @Test func theDatabaseIsReadableByItsOwnerOnly() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("authorize", "locationctl", "when-in-use")
        #expect(run.status == 0, "\(run)")
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.databasePath)
        let mode = try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
        #expect(mode & 0o777 == 0o600, "mode \(String(mode, radix: 8))")
    }
}

import Foundation
import Testing

/// Bad input gets a clear answer and EX_USAGE (64); a missing source gets EX_UNAVAILABLE (69).
@Suite struct BadInputTests {
    @Test func unknownOptionPrintsUsage() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("locate", "--bogus")
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("--bogus"), "\(run)")
        #expect(run.stderr.contains("Usage: locationctl locate"), "\(run)")
    }

    @Test func latitudeOutOfRange() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("locate", "--simulate", "91,0")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("latitude 91"), "\(run)")
    }

    @Test func limitMustBePositive() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("track", "--simulate", "drive", "--limit", "0")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("--limit"), "\(run)")
    }

    @Test(arguments: [["--speed", "-1"], ["--speed=-1"], ["--speed", "0"], ["--speed", "fast"]])
    func speedMustBePositive(speed: [String]) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(.locationctl, ["track", "--simulate", "drive"] + speed)
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("--speed"), "\(run)")
    }

    @Test func distanceFilterMustBeADistance() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("track", "--simulate", "drive", "--distance-filter=-5")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("--distance-filter"), "\(run)")
    }

    /// With no source at all, locate and track say so at once (before asking for authorization,
    /// which could not help), whatever the authorization.
    @Test(arguments: ["track", "locate"])
    func noSourceSaysSoAtOnce(command: String) async throws {
        let sandbox = try Sandbox()
        for policy in ["deny", "when-in-use"] {
            let run = try await sandbox.locationctl(command, extra: ["CORELOCATION_DEFAULT_POLICY": policy])
            #expect(run.status == 69, "\(run)")
            #expect(run.stdout.isEmpty, "\(run)")
            #expect(run.stderr.contains("no source is configured"), "\(run)")
            #expect(run.stderr.contains("CORELOCATION_SIMULATE"), "\(run)")
            // With "deny", 69 (not 77) shows the check comes before authorization, so it does not
            // wait for the engine's location-unknown timeout either.
        }
    }
}

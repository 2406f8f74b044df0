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

    /// With no source and no decision, the built-in policy denies (only all-simulated sources get
    /// when-in-use without asking), so the answer is "not authorized" at once.
    @Test func noSourceAndNoDecisionIsNotAuthorized() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("track")
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.contains("locationctl authorize locationctl when-in-use"), "\(run)")
    }

    /// Authorized but with no source: the engine reports kCLErrorLocationUnknown after 15 s, and
    /// track names the missing source.
    @Test func noSourceWhenAuthorizedSaysSo() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("track", extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        #expect(run.status == 69, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("no source is configured"), "\(run)")
        #expect(run.stderr.contains("CORELOCATION_SIMULATE"), "\(run)")
    }
}

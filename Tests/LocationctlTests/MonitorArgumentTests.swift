import Foundation
import Testing

/// Issue 15 item 5: an invalid --region exits 64 at once with the reason, instead of printing the
/// monitoring failure and then running for ever (a fixed simulated point never finishes).
@Suite struct MonitorArgumentTests {
    @Test(arguments: [
        ("1,2,-5", "radius"), ("1,2,0", "radius"), ("1,2,nan", "radius"), ("1,2,inf", "radius"),
        ("91,2,100", "latitude"), ("1,181,100", "longitude"), ("nan,2,100", "latitude"), ("1,2,100,", "identifier"),
    ])
    func invalidRegionExitsWithUsage(region: String, reason: String) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl(
            "monitor", "--simulate", "1,2", "--region", region, extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"]
        )
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("--region \(region)"), "\(run)")
        #expect(run.stderr.contains(reason), "\(run)")
        #expect(run.stderr.contains("Usage: locationctl monitor"), "\(run)")
    }

    @Test func malformedRegionExitsWithUsage() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("monitor", "--simulate", "1,2", "--region", "1,2")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("--region"), "\(run)")
    }
}

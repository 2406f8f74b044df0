import Foundation
import Testing

/// The harness itself: a tool that outlives its limit is killed and the test fails, never hangs.
@Suite struct RunnerTests {
    @Test func aToolThatOutlivesItsLimitIsKilled() async throws {
        let sandbox = try Sandbox()
        // Without a usage description the probe makes no progress; it would give up after 600 s.
        let plist = try sandbox.writeInfoPlist(["CFBundleIdentifier": "org.example.probe"])
        var environment = sandbox.environment
        environment["CORELOCATION_SIMULATE"] = "48.8584,2.2945"
        environment["CORELOCATION_INFO_PLIST"] = plist
        let timedOut = await #expect(throws: ToolTimedOut.self) {
            try await Tool.probe.run(["runloop", "600"], environment: environment, in: sandbox.directory, limit: 0.5)
        }
        // Not a timing claim: the probe alone would run 600 s, so anything well below proves the kill
        // (a loaded 2-core machine took 14.6 s, and once 50 s, to start and reap it). Measured from the
        // start to the reaping, not across this test's awaits (those waited 478 s for a thread once).
        #expect((timedOut?.ranFor ?? .infinity) < 300)
    }

    @Test func theProductsDirectoryHoldsBothTools() {
        #expect(FileManager.default.isExecutableFile(atPath: Tool.locationctl.url.path), "\(Tool.productsDirectory)")
        #expect(FileManager.default.isExecutableFile(atPath: Tool.probe.url.path), "\(Tool.productsDirectory)")
    }
}

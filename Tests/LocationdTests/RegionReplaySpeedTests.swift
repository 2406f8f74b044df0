import Foundation
import Testing

/// Issue 35: through a real `locationd` with `--simulate drive`, the 150 m region the drive passes through
/// (45.280822,13.72026, the car inside for 24 s) is entered and left at `--simulate-speed 1`'s pace and
/// faster. The region rule runs on the fixes' timestamps and a simulated fix carries the simulation's
/// time (decision 0062), so the daemon's wall clock no longer decides: 4× and 20× give the same events.
@Suite(.serialized) struct RegionReplaySpeedTests {
    /// The drive reaches the region 144 recorded seconds in and leaves it by 06:18:59 (189 s): `seconds`
    /// of wall clock cover that at `speed` with room for a loaded machine.
    static func crossings(speed: Int, seconds: Int) async throws -> [String] {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "drive", "--simulate-speed", "\(speed)"])
        let plist = try harness.infoPlist(bundle: "org.example.drive")
        let app = try RunningApp(
            harness, ["region", "45.280822", "13.72026", "150", "rt", "--seconds", "\(seconds)"],
            extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(
            await app.wait(timeout: Double(seconds)) { $0.contains { $0.hasPrefix("exit ") } },
            "\(app.lines.withLock { $0 })\n\(harness.logText)")
        await app.stop()
        return app.lines.withLock { lines in
            lines.filter { $0.hasPrefix("enter ") || $0.hasPrefix("exit ") }.map {
                $0.split(separator: " ").enumerated().filter { $0.offset != 1 }.map(\.element).joined(separator: " ")
            }
        }
    }

    @Test(arguments: [(20, 40), (4, 90)])
    func theDriveThroughEntersAndExitsAtEverySpeed(speed: Int, seconds: Int) async throws {
        let events = try await Self.crossings(speed: speed, seconds: seconds)
        #expect(events == ["enter rt", "exit rt"])
    }
}

import Foundation
import Testing

/// Issue 35: `locationctl monitor --simulate drive --region 45.280822,13.72026,150,rt` gave no event although
/// the car drives through the region's centre and stays inside it for 24 s (06:18:12–06:18:36). Now it gives
/// the entry and the exit at every replay speed (decision 0062), about 20 s after the car was clearly
/// inside / outside, and the same events, times included, at every speed with the recorded points.
@Suite struct MonitorRegionSpeedTests {
    static func events(speed: String, rate: String? = nil) async throws -> [String] {
        let sandbox = try Sandbox()
        let run = try await Tool.locationctl.run(
            ["monitor", "--simulate", "drive", "--region", "45.280822,13.72026,150,rt", "--speed", speed, "--format", "json"]
                + (rate.map { ["--rate", $0] } ?? []),
            environment: sandbox.environment, in: sandbox.directory, limit: 300)
        #expect(run.status == 0, "\(run)")
        return try run.lines.map(jsonObject).compactMap { object -> String? in
            guard let event = object["event"] as? String, event == "enter" || event == "exit" else { return nil }
            return "\(event) \(object["identifier"] as? String ?? "") \(object["time"] as? String ?? "")"
        }
    }

    /// The times of the events, seconds after midnight, for the two checks of each speed.
    static func clock(_ event: String) -> Double {
        let time = event.split(separator: "T").last.map(String.init) ?? ""
        let parts = time.prefix(8).split(separator: ":").compactMap { Double($0) }
        return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : .nan
    }

    @Test(arguments: ["max", "20", "4"])
    func theDriveThroughGivesEnterAndExit(speed: String) async throws {
        let events = try await Self.events(speed: speed)
        #expect(events.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["enter rt", "exit rt"], "\(events)")
        // The first fix clearly inside (≤ 130 m with 5 m accuracy) is 06:18:13–14, clearly outside 06:18:39.
        let enter = Self.clock(events.first ?? "")
        let exit = Self.clock(events.last ?? "")
        let inside = 6 * 3600 + 18 * 60 + 13.0
        let outside = 6 * 3600 + 18 * 60 + 39.0
        #expect(enter - inside >= 15 && enter - inside <= 25, "\(events)")
        #expect(exit - outside >= 15 && exit - outside <= 25, "\(events)")
    }

    /// With the recorded points at every speed, the events are the same, times included.
    @Test func theSameEventsAtEverySpeed() async throws {
        async let fastest = Self.events(speed: "max", rate: "recorded")
        async let twenty = Self.events(speed: "20", rate: "recorded")
        let (max, x20) = try await (fastest, twenty)
        #expect(max.count == 2)
        #expect(x20 == max)
    }
}

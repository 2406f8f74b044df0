import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// The walk of the visit tests (`ErrandWalk`), with this target's name as its creator.
private func errandGPX(stay: Int) -> ErrandWalk { ErrandWalk(stay: stay, creator: "LocationctlTests") }

@Suite struct MonitorVisitsTests {
    @Test func visitsComeOutAsJSONLinesWithBothDates() async throws {
        let sandbox = try Sandbox()
        let errand = errandGPX(stay: 600)
        let path = try sandbox.write(errand.gpx, to: "errand.gpx")
        let run = try await sandbox.locationctl(
            "monitor", "--visits", "--simulate", path, "--speed", "max", "--format", "json")
        #expect(run.status == 0, "\(run)")
        let visits = try run.lines.map(jsonObject).filter { $0["event"] as? String == "visit" }
        try #require(visits.count == 2, "\(run)")
        // At --speed max each fix carries its recorded time.
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        func date(_ value: Any?) throws -> Date { try parse.parse(try #require(value as? String)) }
        let arrival = try date(visits[0]["arrival"])
        #expect(visits[0]["departure"] is NSNull)
        #expect(try date(visits[1]["arrival"]) == arrival)
        let departure = try date(visits[1]["departure"])
        // Arrival within 22 s before the stop (the walk through the 30 m core), departure within 22 s after.
        let stayed = departure.timeIntervalSince(arrival)
        #expect(stayed >= errand.leaveAt - errand.stopAt && stayed <= errand.leaveAt - errand.stopAt + 44)
        #expect(abs(try #require(visits[1]["latitude"] as? Double)) < 1e-6)
        let accuracy = try #require(visits[1]["horizontalAccuracy"] as? Double)
        #expect(accuracy > 0 && accuracy < 30)
    }

    @Test func aShortStopIsNoVisitAndNothingToMonitorIsAUsageError() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(errandGPX(stay: 120).gpx, to: "short.gpx")
        let run = try await sandbox.locationctl("monitor", "--visits", "--simulate", path, "--speed", "max")
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("visit"), "\(run)")
        let empty = try await sandbox.locationctl("monitor", "--simulate", path)
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("--visits"), "\(empty)")
    }

    @Test func trackPausesWhileStandingStillAndSavesReceiverTime() async throws {
        let sandbox = try Sandbox()
        let errand = errandGPX(stay: 900)
        let path = try sandbox.write(errand.gpx, to: "errand.gpx")
        // At 100× the 1 328 s recording takes ~13 s; the engine runs on the recording's timeline.
        let run = try await sandbox.locationctl(
            "track", "--simulate", path, "--speed", "100", "--auto-pause", "--activity", "fitness", "--status",
            "--format", "csv")
        #expect(run.status == 0, "\(run)")
        let paused = try #require(run.stderr.range(of: "paused: standing still"), "\(run)")
        let resumed = try #require(run.stderr.range(of: "resumed: moved away"), "\(run)")
        #expect(paused.lowerBound < resumed.lowerBound)
        // The status line's on-time (recorded seconds: a replay runs on the recording's timeline,
        // decision 0020) shows the ~11 minutes of pause: the receiver was on well under the
        // recording's 1 328 s (456 s measured).
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("on-time") }, "\(run)")
        let onTime = try #require(line.firstMatch(of: /on-time ([0-9.]+) s/).flatMap { Double($0.1) })
        #expect(onTime < 900, "\(line)")
        let rows = try CSVRow.parse(run.stdout).rows
        #expect(rows.count > 214 && rows.count < 400, "\(rows.count) rows")
    }

    /// `monitor` builds its sources as `track` does: a `--source` is used, not the environment's.
    @Test func monitorReadsTheNamedSource() async throws {
        let sandbox = try Sandbox()
        let walk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GPSDIntegrationTests/Fixtures/walk.nmea").path
        let run = try await sandbox.locationctl("monitor", "--source", "nmea:\(walk)", "--significant", "--format", "json")
        #expect(run.status == 0, "\(run)")
        let first = try jsonObject(try #require(run.lines.first, "\(run)"))
        #expect(first["event"] as? String == "significant")
        // walk.nmea's first fix: 4807.038,N 01131.000,E.
        #expect(abs((first["latitude"] as? Double ?? 0) - 48.1173) < 1e-4)
        let missing = try await sandbox.locationctl("monitor", "--source", "nmea:/nonexistent/x.nmea", "--significant")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("/nonexistent/x.nmea"), "\(missing)")
    }
}

/// Regression (issue 15 item 2): at a numeric `--speed` visits printed nothing and region events
/// carried the wall clock. Every replay now runs on the recording's timeline (decision 0020), so
/// the issue's own command prints the same events at 200×, 1000× and max, stamped with the
/// recording's times (2020-10-29 07:45–10:36 UTC).
@Suite struct ReplaySpeedEventsTests {
    static let track = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/visits/tracks/ExampleTrack.gpx").path

    static func events(speed: String) async throws -> [String] {
        let sandbox = try Sandbox()
        // 10 249 recorded seconds: about 51 s at 200×; the limit leaves room on a loaded machine.
        let run = try await Tool.locationctl.run(
            [
                "monitor", "--visits", "--simulate", track, "--speed", speed, "--format", "json",
                "--region", "45.8421723,4.798095,200,stay2",
            ],
            environment: sandbox.environment, in: sandbox.directory, limit: 240)
        #expect(run.status == 0, "\(run)")
        return run.lines
    }

    @Test func theSameVisitsAndRegionEventsAtEverySpeed() async throws {
        async let fastest = Self.events(speed: "max")
        async let thousand = Self.events(speed: "1000")
        async let twoHundred = Self.events(speed: "200")
        let (max, x1000, x200) = try await (fastest, thousand, twoHundred)
        let visits = try max.map(jsonObject).filter { $0["event"] as? String == "visit" }
        #expect(visits.count >= 4, "\(max)")
        #expect(max.contains { $0.contains("\"enter\"") } && max.contains { $0.contains("\"exit\"") }, "\(max)")
        #expect(x1000 == max)
        #expect(x200 == max)
        // Every time printed is the recording's, not today's.
        let start = try Date("2020-10-29T07:45:00Z", strategy: .iso8601)
        let end = try Date("2020-10-29T10:37:00Z", strategy: .iso8601)
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for line in x200 {
            for match in line.matches(of: /"(\d{4}-\d\d-\d\dT[0-9:.]+Z)"/) {
                let date = try parse.parse(String(match.1))
                #expect(date >= start && date <= end, "\(line)")
            }
        }
    }
}

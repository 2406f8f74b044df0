import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import CoreLocationReporting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, "survives kill", with real processes: `locationctl report` shares the live position of
/// locationd's simulated drive with the receiving test server, is SIGKILLed while the server is down and
/// reports wait in its queue, and locationd starts it again when the drive leaves the region around its
/// last report: every report that was queued reaches the server once (decision 0045).
@Suite(.serialized) struct ReporterRelaunchTests {
    static let serverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CoreLocationReportingTests/Server/report_server.py").standardized.path

    /// A drive that keeps turning (so the bounded policy keeps reporting): 15 m a recorded second,
    /// heading north-east and south-east in turn every 20 s, for 30 minutes.
    static func zigzag(in harness: DaemonHarness) throws -> String {
        var (latitude, longitude) = (48.8584, 2.2945)
        var points: [(latitude: Double, longitude: Double)] = []
        for second in 0..<1_800 {
            let heading = (second / 20).isMultiple(of: 2) ? 45.0 : 135.0
            latitude += 15 * cos(heading * .pi / 180) / 111_320
            longitude += 15 * sin(heading * .pi / 180) / (111_320 * cos(latitude * .pi / 180))
            points.append((latitude, longitude))
        }
        return try GPXTrack.write(points, in: harness.directory, creator: "ReporterRelaunchTests")
    }

    /// report_server.py on `port` (0: the kernel's choice), storing into `store`.
    static func startServer(port: Int, store: String) async throws -> (process: ChildProcess, port: Int) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", serverScript, "--port", String(port), "--store", store]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = await ChildProcess.firstLine(of: pipe.fileHandleForReading) ?? ""
        let number = try #require(line.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        return (process, number)
    }

    /// The idempotency keys the server stored, from its JSON-lines file (duplicates are never stored).
    static func storedKeys(_ store: String) -> [String] {
        let text = (try? String(contentsOfFile: store, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return (object["keys"] as? [String])?.first
        }
    }

    /// Processes whose command line contains `marker` (the reporters this test started, or locationd started).
    static func processes(containing marker: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).contains(marker)
        }
    }

    static func target(_ harness: DaemonHarness) async -> BackgroundStatus.Target? {
        guard let result = try? await harness.run("locationctl", ["background", "--json"]), result.status == 0,
            let status = try? JSONDecoder().decode(BackgroundStatus.self, from: Data(result.stdout.utf8))
        else { return nil }
        return status.targets.first { $0.app == "locationctl.report" }
    }

    @Test func killedWithReportsQueuedIsStartedAgainAndLosesNone() async throws {
        let harness = try DaemonHarness()
        let track = try Self.zigzag(in: harness)
        let launched = harness.directory + "/launched.log"
        try await harness.start(
            [
                "--simulate", track, "--simulate-speed", "4", "--region-dwell", "0.6", "--launcher", "exec",
                // A debug build starting on a loaded machine may take seconds to say hello: a short pickup
                // window would have locationd start a second reporter beside the first.
                "--relaunch-pickup", "10",
            ], extra: ["CORELOCATION_LAUNCH_LOG": launched])
        let launchedOutput = { (try? String(contentsOfFile: launched, encoding: .utf8)) ?? "" }
        let store = harness.directory + "/store.jsonl"
        var server = try await Self.startServer(port: 0, store: store)
        let queue = harness.directory + "/queue.sqlite"
        defer {
            for pid in Self.processes(containing: queue) { kill(pid, SIGKILL) }
            server.process.terminate()
        }
        let reporter = try RunningApp(
            harness,
            ["report", "--to", "owntracks+http://127.0.0.1:\(server.port)/pub?d=car", "--queue", queue, "--format", "json"],
            tool: "locationctl")
        let decisions = { reporter.lines.withLock { $0.filter { $0.contains("\"decision\"") }.count } }

        // Reporting live, and known to locationd as an app it may start again.
        #expect(await Polling.until(timeout: 30, every: 0.1) { Self.storedKeys(store).count >= 3 }, "\(harness.logText)")
        #expect(await Polling.until(timeout: 15, every: 0.1) { await Self.target(harness)?.state == "running" })

        // The server goes away: reports wait in the queue. Killed with some waiting.
        server.process.terminate()
        _ = await RunningApp.waitGone(server.process.processIdentifier, timeout: 5)
        let before = decisions()
        #expect(await Polling.until(timeout: 30, every: 0.1) { decisions() >= before + 3 })
        kill(reporter.process.processIdentifier, SIGKILL)
        _ = await RunningApp.waitGone(reporter.process.processIdentifier, timeout: 5)
        let waiting = try ReportQueue(path: queue, device: "car").oldest(100_000).map(\.key)
        #expect(waiting.count >= 3, "reports were queued while the server was down")
        let storedBefore = Set(Self.storedKeys(store))
        #expect(storedBefore.isDisjoint(with: waiting), "what the server stored has left the queue")

        // The server is back; the drive leaves the region around the last report, and locationd starts
        // the reporter again, which sends what was queued first.
        server = try await Self.startServer(port: server.port, store: store)
        #expect(
            await Polling.until(timeout: 90, every: 0.2) { Set(Self.storedKeys(store)).isSuperset(of: waiting) },
            "queued \(waiting.count), stored \(Self.storedKeys(store).count)\n\(harness.logText)\nlaunched:\n\(launchedOutput())")
        let target = await Self.target(harness)
        #expect(target?.recentLaunches ?? 0 >= 1, "locationd started the reporter again")
        #expect(harness.logText.contains("Launched an app for its events"))
        // Once each: the server stores a key once, so a duplicate upload would not show here, but a lost
        // one would; and the relaunched reporter goes on reporting after the backlog.
        let keys = Self.storedKeys(store)
        #expect(Set(keys).count == keys.count)
        #expect(await Polling.until(timeout: 30, every: 0.2) { Self.storedKeys(store).count > storedBefore.count + waiting.count })
    }
}

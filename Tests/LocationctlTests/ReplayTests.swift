import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Replays of long recordings: flat memory, clear errors, `--speed` for NMEA files (issues 15, 20).
@Suite struct ReplayTests {
    /// An NMEA log of `count` one-second epochs (GGA + RMC), written at test time.
    static func nmeaLog(epochs count: Int) -> String {
        func sentence(_ body: String) -> String {
            let sum = body.utf8.reduce(UInt8(0), ^)
            return "$\(body)*\(String(format: "%02X", sum))\r\n"
        }
        var text = ""
        text.reserveCapacity(count * 140)
        for index in 0..<count {
            let t = index % 86_400
            let time = String(format: "%02d%02d%02d.00", t / 3600, (t / 60) % 60, t % 60)
            let minutes = String(format: "%07.4f", Double(index % 100_000) * 6e-5)
            text += sentence("GPGGA,\(time),45\(minutes),N,013\(minutes),E,1,08,0.9,120.0,M,46.9,M,,")
            text += sentence("GPRMC,\(time),A,45\(minutes),N,013\(minutes),E,1.9,54.7,\(String(format: "%02d", 1 + index / 86_400 % 28))0124,,,A")
        }
        return text
    }

    /// A GPX track of `count` points one second apart, written at test time.
    static func gpxTrack(points count: Int) -> String {
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        text.reserveCapacity(count * 90)
        let start = 1_700_000_000
        for index in 0..<count {
            let date = Date(timeIntervalSince1970: Double(start + index)).ISO8601Format()
            let step = Double(index % 100_000) * 1e-6
            text += "<trkpt lat=\"\(45 + step)\" lon=\"\(13.5 + step)\"><ele>120</ele><time>\(date)</time></trkpt>\n"
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// Peak resident memory (KiB) of `locationctl arguments`, stdout to /dev/null: the child's own
    /// `VmHWM` in /proc/PID/status, read until it exits. (Not `wait4`'s `ru_maxrss`: `posix_spawn`
    /// starts the child in the parent's address space, and Linux carries that space's high-water mark
    /// over `exec`, so `ru_maxrss` reports the test runner's peak whenever it is the larger.)
    ///
    /// The child runs for minutes in a debug build; it is watched from a thread of its own, so the wait holds
    /// none of the test process's two pool threads (two such tests at once stalled every other test for
    /// 165 s in a full run).
    static func peakMemory(_ arguments: [String], sandbox: Sandbox) async throws -> (status: Int32, kilobytes: Int) {
        let environment = sandbox.environment
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try peakMemoryBlocking(arguments, environment: environment) })
            }
        }
    }

    private static func peakMemoryBlocking(
        _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, kilobytes: Int) {
        let argv = [Tool.locationctl.url.path] + arguments
        let environment = environment.merging(["CORELOCATION_DEFAULT_POLICY": "when-in-use"]) { $1 }
            .map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw SpawnFailure(code: spawned) }
        var peak = 0
        var status: Int32 = 0
        let deadline = Date(timeIntervalSinceNow: 600)
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3))
            {
                peak = max(peak, kilobytes)
            }
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno != EINTR) { break }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        return ((status >> 8) & 0xff, peak)
    }

    /// Builds a generated recording (up to 90 MB of text, seconds of CPU in a debug build) on a thread of
    /// its own: on the test process's pool it held a thread every other test's tasks were waiting for.
    static func generated(_ make: @escaping @Sendable () -> String) async -> String {
        (try? await Polling.onOwnThread(make)) ?? ""
    }

    /// Regression (issue 20): an 84 MB log peaked at 512 MB; the file was read whole and fixes
    /// queued without bound. Then (decision 0036) a release replay still grew by about 40 bytes an
    /// epoch (81 MiB at 10^6): `track`'s delegate re-queued every location in an `AsyncStream` that the
    /// command's loop drained one element per main-queue turn, outside the delivery flow's count; under
    /// a parallel test run (a starved main queue) the same queue made this test's peak vary up to
    /// 117 MiB. Now the flow counts a location until the loop has taken it, so the peak is the same at
    /// 10^4 and 10^5 epochs within 8 MiB. 10^5, not 10^6: a debug child replays about 2 000 epochs a
    /// second on this machine, and 10^6 would take minutes (the release figures at 10^6 are in
    /// Benchmarks/replay/README.md).
    @Test func nmeaReplayMemoryDoesNotGrowWithLength() async throws {
        let sandbox = try Sandbox()
        var peaks: [Int] = []
        for count in [10_000, 100_000] {
            let path = try sandbox.write(await Self.generated { Self.nmeaLog(epochs: count) }, to: "log\(count).nmea")
            let run = try await Self.peakMemory(
                ["track", "--source", "nmea:\(path)", "--speed", "max", "--format", "csv"], sandbox: sandbox)
            #expect(run.status == 0, "locationctl's exit status at \(count) epochs (peak \(run.kilobytes) KiB)")
            peaks.append(run.kilobytes)
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(peaks[0] > 0, "peak KiB at 10^4 and 10^5 epochs: \(peaks)")
        #expect(peaks.allSatisfy { $0 <= 160 * 1_024 }, "peak KiB at 10^4 and 10^5 epochs: \(peaks)")
        #expect(peaks[1] <= peaks[0] + 8_192, "peak KiB at 10^4 and 10^5 epochs: \(peaks)")
    }

    /// Regression (issue 20): a GPX over 10 MB was refused as malformed XML. 150 000 points (14 MB)
    /// replay whole (exit 0, every point printed).
    @Test func gpxOver10MBReplaysWhole() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(await Self.generated { Self.gpxTrack(points: 150_000) }, to: "track150000.gpx")
        let run = try await Self.peakMemory(["track", "--simulate", path, "--speed", "max", "--format", "csv"], sandbox: sandbox)
        #expect(run.status == 0)
        #expect(run.kilobytes > 0 && run.kilobytes <= 160 * 1_024, "peak KiB: \(run.kilobytes)")
    }

    /// Regression (issue 20 item 2): a GPX replay held every point of the route (about 72 bytes
    /// each, after a streaming parse), so its peak grew with the file. The route now streams
    /// (`GPXRouteFile`, `RouteStream`): at 10^5 and 10^6 points (9 and 90 MB) the peak is the same.
    /// `--limit` keeps the test short; the old code read the whole route before the first fix,
    /// so a limit did not help it.
    @Test func gpxReplayMemoryDoesNotGrowWithLength() async throws {
        let sandbox = try Sandbox()
        var peaks: [Int] = []
        for count in [100_000, 1_000_000] {
            let path = try sandbox.write(await Self.generated { Self.gpxTrack(points: count) }, to: "track\(count).gpx")
            let run = try await Self.peakMemory(
                ["track", "--simulate", path, "--speed", "max", "--format", "csv", "--limit", "2000"], sandbox: sandbox)
            #expect(run.status == 0)
            peaks.append(run.kilobytes)
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(peaks[0] > 0)
        #expect(peaks.allSatisfy { $0 <= 160 * 1_024 }, "peak KiB at 10^5 and 10^6 points: \(peaks)")
        #expect(peaks[1] <= peaks[0] + 8_192, "peak KiB at 10^5 and 10^6 points: \(peaks)")
    }

    /// `track` writes timestamps itself (`TimestampText`, decision 0036), not through Foundation's
    /// `ISO8601FormatStyle`. A GPX replay prints its recorded times; the oracle is Foundation's text for
    /// the same instants (fractions a binary double holds exactly, a leap day, centuries, midnight),
    /// in every format that prints a time.
    @Test(arguments: ["csv", "json", "text"])
    func printedTimestampsAreFoundations(format: String) async throws {
        let times = [
            "1999-12-31T23:59:59.750Z", "2000-02-29T12:00:00.125Z", "2023-11-14T22:13:20.500Z",
            "2024-02-29T23:59:59.250Z", "2024-03-01T00:00:00.000Z", "2100-03-01T01:02:03.875Z",
        ]
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let expected = try times.map { try Date($0, strategy: style) }
            .map { $0.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)) }
        #expect(expected == times)
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        for (index, time) in times.enumerated() {
            gpx += "<trkpt lat=\"\(45 + Double(index) * 0.001)\" lon=\"13.5\"><ele>120</ele><time>\(time)</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let sandbox = try Sandbox()
        let path = try sandbox.write(gpx, to: "times.gpx")
        let run = try await sandbox.locationctl(
            "track", "--simulate", path, "--speed", "max", "--format", format,
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("timestamp,") }
        let printed = lines.map { line -> String in
            switch format {
            case "csv": return String(line.prefix { $0 != "," })
            case "json":
                let value = line.split(separator: "\"").drop { $0 != "timestamp" }.dropFirst(2).first
                return value.map(String.init) ?? ""
            default: return String(line.prefix { $0 != " " })
            }
        }
        #expect(printed == expected, "\(run)")
    }

    @Test(arguments: ["passwd", "empty", "binary"])
    func notNMEASaysSoAndFails(kind: String) async throws {
        let sandbox = try Sandbox()
        let path: String
        switch kind {
        case "passwd": path = try sandbox.write("root:x:0:0:root:/root:/bin/bash\n", to: "passwd")
        case "empty": path = try sandbox.write("", to: "empty.nmea")
        default:
            path = sandbox.directory.appendingPathComponent("binary.nmea").path
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: URL(fileURLWithPath: path))
        }
        let run = try await sandbox.locationctl(
            "track", "--source", "nmea:\(path)", extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("no NMEA sentence found in \(path)"), "\(run)")
    }

    @Test func fileProblemsAreNamed() async throws {
        let sandbox = try Sandbox()
        let missing = sandbox.directory.appendingPathComponent("missing.nmea").path
        var run = try await sandbox.locationctl("track", "--source", "nmea:\(missing)")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("no such file: \(missing)"), "\(run)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"), "\(run)")
        run = try await sandbox.locationctl("track", "--simulate", sandbox.directory.path + "/")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("is a directory"), "\(run)")
    }

    /// Regression (issue 15): `--speed` was silently ignored by NMEA file replays. Ten epochs one
    /// second apart at --speed 1000 take 10 ms of replay, not 9 s; at the recorded pace the tool
    /// would outlive the 5 s limit.
    @Test func speedAppliesToNMEAFiles() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(Self.nmeaLog(epochs: 10), to: "ten.nmea")
        let run = try await Tool.locationctl.run(
            ["track", "--source", "nmea:\(path)", "--speed", "1000", "--format", "csv"],
            environment: sandbox.environment.merging(["CORELOCATION_DEFAULT_POLICY": "when-in-use"]) { $1 },
            in: sandbox.directory, limit: 5)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.count == 11, "\(run)")
    }

    /// Regression: a replay at --speed max whose reader falls behind ended with "kCLErrorLocationUnknown: no
    /// fix for a while; still trying." after printing every fix. The timeline runs the engine's no-fix timer
    /// as soon as the last epoch is out; the end of the recording waited for the reader. A reader that
    /// takes 4 KiB a millisecond makes the reader the slow side every time.
    @Test func aReplayThatEndedSaysNothingOfMissingFixes() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(await Self.generated { Self.nmeaLog(epochs: 10_000) }, to: "log.nmea")
        let reader = "import sys, time\nn = 0\nwhile True:\n    b = sys.stdin.buffer.read1(4096)\n    if not b: break\n"
            + "    n += b.count(b'\\n')\n    time.sleep(0.001)\nprint(n)\n"
        let script = try sandbox.write(reader, to: "reader.py")
        let run = try await Tool.locationctl.run(
            ["-c", "\"$0\" track --source nmea:\(path) --speed max --format csv | python3 \(script)",
             Tool.locationctl.url.path],
            environment: sandbox.environment.merging(["CORELOCATION_DEFAULT_POLICY": "when-in-use"]) { $1 },
            in: sandbox.directory, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10001", "every fix and the header: \(run)")
        #expect(!run.stderr.contains("kCLErrorLocationUnknown"), "\(run)")
    }

    @Test func distanceFilterNoneIsAccepted() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl(
            "track", "--simulate", "48.8584,2.2945", "--distance-filter", "-1", "--limit", "2",
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.count == 2, "\(run)")
    }
}

struct SpawnFailure: Error, CustomStringConvertible {
    var code: Int32
    var description: String { "posix_spawn failed: \(code)" }
}

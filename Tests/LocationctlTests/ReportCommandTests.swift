import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `locationctl report` end to end: the built binary, the receiving test server, the queue file.
@Suite struct ReportCommandTests {
    static let drive = ["report", "--simulate", "drive", "--speed", "max"]

    static func decisions(_ run: ToolRun) -> [String] {
        run.lines.filter { $0.contains("  track ") || $0.contains("  arrival ") || $0.contains("  departure ") }
    }

    @Test func dryRunPrintsDecisionsAndASummary() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(.locationctl, Self.drive + ["--dry-run"])
        #expect(run.status == 0, "\(run)")
        let lines = Self.decisions(run)
        #expect(lines.count >= 2, "\(run)")
        #expect(run.stdout.contains("summary (bounded):"))
        #expect(run.stdout.contains("fixes seen"))
        #expect(run.stdout.contains("SED while moving    max "))
        #expect(run.stdout.contains("none (--dry-run)"))
        let recipe = try await sandbox.run(.locationctl, Self.drive + ["--dry-run", "--policy", "recipe"])
        #expect(recipe.status == 0, "\(recipe)")
        #expect(recipe.stdout.contains("summary (recipe):"))
    }

    @Test func badArgumentsAreRefusedClearly() async throws {
        let sandbox = try Sandbox()
        let scheme = try await sandbox.run(.locationctl, Self.drive + ["--to", "mqtt://broker:1883/x"])
        #expect(scheme.status == 64, "\(scheme)")
        #expect(scheme.stderr.contains("unknown URL scheme \"mqtt\""), "\(scheme)")
        let noTarget = try await sandbox.run(.locationctl, Self.drive)
        #expect(noTarget.status == 64, "\(noTarget)")
        #expect(noTarget.stderr.contains("--to URL is needed"), "\(noTarget)")
        let beat = try await sandbox.run(.locationctl, Self.drive + ["--dry-run", "--heartbeat", "60"])
        #expect(beat.status == 64, "\(beat)")
        // Live mode: a replay speed means nothing, and a replay and a live source exclude each other.
        let liveSpeed = try await sandbox.run(.locationctl, ["report", "--dry-run", "--speed", "10"])
        #expect(liveSpeed.status == 64 && liveSpeed.stderr.contains("--speed applies to --simulate"), "\(liveSpeed)")
        let both = try await sandbox.run(.locationctl, Self.drive + ["--dry-run", "--source", "stdin"])
        #expect(both.status == 64 && both.stderr.contains("exclude each other"), "\(both)")
        let badSource = try await sandbox.run(.locationctl, ["report", "--dry-run", "--source", "carrier-pigeon:"])
        #expect(badSource.status == 64, "\(badSource)")
    }

    /// Uploaded through OwnTracks: the server stores exactly the decisions printed, in order.
    @Test func uploadsEveryDecisionOnce() async throws {
        let sandbox = try Sandbox()
        let server = try await ReceivingServer()
        defer { server.stop() }
        let run = try await sandbox.run(
            .locationctl, Self.drive + ["--to", "owntracks+http://127.0.0.1:\(server.port)/pub?d=car"])
        #expect(run.status == 0, "\(run)")
        let stored = try server.stored()
        #expect(stored.count == Self.decisions(run).count, "\(run)")
        let times = stored.compactMap { ($0["message"] as? [String: Any])?["tst"] as? Int }
        #expect(times == times.sorted())
        #expect(run.stdout.contains("\(stored.count) delivered"), "\(run)")
        #expect(run.stdout.contains(", 0 waiting"), "\(run)")
    }

    /// Server down: exit 75 with the queue kept; the next run sends the backlog first and the
    /// idempotency keys keep every point once.
    @Test func aDeadServerKeepsTheQueueForTheNextRun() async throws {
        let sandbox = try Sandbox()
        let dead = try await sandbox.run(
            .locationctl, Self.drive + ["--to", "owntracks+http://127.0.0.1:\(try closedPort())/pub", "--timeout", "2"])
        #expect(dead.status == 75, "\(dead)")
        let queued = Self.decisions(dead).count
        #expect(dead.stdout.contains("\(queued) waiting"), "\(dead)")
        let server = try await ReceivingServer()
        defer { server.stop() }
        let again = try await sandbox.run(.locationctl, Self.drive + ["--to", "owntracks+http://127.0.0.1:\(server.port)/pub"])
        #expect(again.status == 0, "\(again)")
        #expect(again.stderr.contains("resuming: \(queued) reports queued by an earlier run"), "\(again)")
        // The drive route carries its recording's times, so the second run decides the same points with
        // the same idempotency keys: queued once, stored once.
        let stored = try server.stored()
        #expect(stored.count == queued, "\(again)")
        let times = stored.compactMap { ($0["message"] as? [String: Any])?["tst"] as? Int }
        #expect(times == times.sorted(), "oldest first")
    }

    /// Credentials come from a file only its owner reads, or the environment (issue 37): the right ones are
    /// accepted by the server, wrong ones stop with exit 77 (401), and a URL carrying a password or a file others
    /// may read is refused before anything is sent.
    @Test func credentialsComeFromAFileOrTheEnvironmentNeverTheURL() async throws {
        let sandbox = try Sandbox()
        let server = try await ReceivingServer(["--user", "alice", "--password", "right"])
        defer { server.stop() }
        let url = "owntracks+http://127.0.0.1:\(server.port)/pub"

        let file = try sandbox.write("alice:right\n", to: "credentials")
        #expect(chmod(file, 0o600) == 0)
        let right = try await sandbox.run(.locationctl, Self.drive + ["--to", url, "--credentials", file])
        #expect(right.status == 0, "\(right)")
        #expect(try !server.stored().isEmpty, "\(right)")

        let wrong = try await sandbox.run(
            .locationctl, Self.drive + ["--to", url], extra: ["CORELOCATION_REPORT_CREDENTIALS": "alice:wrong"])
        #expect(wrong.status == 77, "\(wrong)")
        #expect(wrong.stderr.contains("refused the credentials (401)"), "\(wrong)")

        let inURL = try await sandbox.run(
            .locationctl, Self.drive + ["--to", "owntracks+http://alice:right@127.0.0.1:\(server.port)/pub"])
        #expect(inURL.status == 64, "\(inURL)")
        #expect(inURL.stderr.contains("--to carries a password"), "\(inURL)")

        #expect(chmod(file, 0o644) == 0)
        let open = try await sandbox.run(.locationctl, Self.drive + ["--to", url, "--credentials", file])
        #expect(open.status == 64, "\(open)")
        #expect(open.stderr.contains("may be read by others (mode 644): chmod 600 it"), "\(open)")
    }

    /// Decision 0054 end to end: a GPX whose logger falls silent for 7 minutes after a walk (as a logger
    /// that records every 10 m does at a stop). The arrival is decided 120 s after the last fix, when
    /// replayed at full speed and when paced.
    @Test(arguments: ["max", "500"])
    func aSilentLoggerIsSettledWhenTheSilenceRunsOut(speed: String) async throws {
        let sandbox = try Sandbox()
        let start = 1_600_000_000.0
        var points: [(Double, Double)] = []  // (seconds, metres east)
        for i in 0..<40 { points.append((Double(i) * 8, Double(i) * 10)) }
        points.append((312 + 420, 395))
        for i in 1...30 { points.append((312 + 1200 + Double(i) * 8, 390 + Double(i) * 10)) }
        let formatter = ISO8601DateFormatter()
        let body = points.map { t, x in
            let longitude = 2.35 + x / (6_371_008.8 * cos(48.85 * .pi / 180)) * 180 / .pi
            let time = formatter.string(from: Date(timeIntervalSince1970: start + t))
            return "<trkpt lat=\"48.85\" lon=\"\(longitude)\"><time>\(time)</time></trkpt>"
        }.joined(separator: "\n")
        let gpx = try sandbox.write(
            "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n\(body)\n</trkseg></trk></gpx>\n",
            to: "silent.gpx")
        let run = try await sandbox.run(
            .locationctl, ["report", "--simulate", gpx, "--speed", speed, "--dry-run", "--format", "json"])
        #expect(run.status == 0, "\(run)")
        let decisions = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["type"] as? String == "decision" }
        let arrivals = decisions.filter { $0["kind"] as? String == "arrival" }
        try #require(arrivals.count == 1, "\(run)")
        #expect(arrivals[0]["reason"] as? String == "settled: no fix for 120 s")
        let decided = (arrivals[0]["decided_at"] as? Double) ?? (arrivals[0]["decided_at"] as? Int).map(Double.init)
        let at = (arrivals[0]["time"] as? Double) ?? (arrivals[0]["time"] as? Int).map(Double.init)
        // Paced, the replay's clock is the wall clock from the start: compare with the first decision's time.
        let first = decisions.first.flatMap { ($0["time"] as? Double) ?? ($0["time"] as? Int).map(Double.init) }
        #expect(at.flatMap { a in first.map { a - $0 } } == 312, "\(decisions)")
        #expect(decided.flatMap { d in first.map { d - $0 } } == 432, "\(decisions)")
        #expect(decisions.filter { $0["kind"] as? String == "departure" }.count == 1, "\(run)")
    }
}

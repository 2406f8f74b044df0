import Foundation
import Testing

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

    @Test func badCredentialsStopWithExit77() async throws {
        let sandbox = try Sandbox()
        let server = try await ReceivingServer(["--user", "alice", "--password", "right"])
        defer { server.stop() }
        let run = try await sandbox.run(
            .locationctl, Self.drive + ["--to", "owntracks+http://alice:wrong@127.0.0.1:\(server.port)/pub"])
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.contains("refused the credentials (401)"), "\(run)")
        #expect(try server.stored().isEmpty)
    }
}

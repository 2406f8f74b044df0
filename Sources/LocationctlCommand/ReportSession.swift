import ArgumentParser
import CoreLocationEngine
import CoreLocationReporting
import CoreLocationStorage
import Foundation

/// One `locationctl report` run: the policy, the queue, a background drain, the printed lines.
struct ReportSession {
    private var policy: ReportPolicy
    private var summary = ReportSummary()
    private let queue: ReportQueue?
    private let deliverer: ReportDeliverer?
    private let endpoint: ReportEndpoint?
    private let format: ReportFormat
    private let wake: AsyncStream<Void>.Continuation?
    private let drainTask: Task<ReportDeliverer.Outcome, Never>?
    private let backlog: Int

    init(command: LocationCtl.Report) throws {
        policy = command.makePolicy()
        format = command.format
        guard !command.dryRun, let to = command.to else {
            queue = nil
            deliverer = nil
            endpoint = nil
            wake = nil
            drainTask = nil
            backlog = 0
            return
        }
        var endpoint = try ReportEndpoint.parse(to, device: command.device)
        if let (user, password) = try ReportCredentials.load(
            file: command.credentials, environment: ProcessInfo.processInfo.environment)
        {
            endpoint = endpoint.authenticated(user: user, password: password)
        }
        let path = command.queue
            ?? ((LocationDatabase.defaultPath() as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("report-queue.sqlite")
        let queue = try ReportQueue(
            path: path, device: endpoint.device, capacity: command.capacity, thinningEpsilon: command.epsilon)
        backlog = try queue.state().count
        let deliverer = ReportDeliverer(
            queue: queue, uploader: HTTPReportUploader(endpoint: endpoint, timeout: command.timeout),
            backoff: Backoff(seed: UInt64(truncatingIfNeeded: getpid())))
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.queue = queue
        self.deliverer = deliverer
        self.endpoint = endpoint
        self.wake = continuation
        // Drains whenever woken; stops at a permanent error (the queue is kept).
        drainTask = Task {
            var total = ReportDeliverer.Outcome()
            for await _ in stream {
                let outcome = await deliverer.drain()
                total.delivered += outcome.delivered
                total.waits += outcome.waits
                if let error = outcome.stoppedBy, !error.isRetryable {
                    total.stoppedBy = error
                    printError("upload stopped: \(error.message); the queue is kept")
                    return total
                }
            }
            return total
        }
        if backlog > 0 { printError("resuming: \(backlog) reports queued by an earlier run are sent first") }
        continuation.yield()
    }

    /// When the policy is owed `passTime(to:)` if no fix comes first (its silence rule).
    var nextTick: Date? { policy.nextTick }

    /// Time passing with no fix: the decisions due by `now` (printed and queued), made at their own moment.
    @discardableResult
    mutating func passTime(to now: Date) throws -> [ReportDecision] {
        summary.passTime(to: now)
        let decisions = policy.tick(at: now)
        try emit(decisions)
        return decisions
    }

    /// The decisions the fix made (printed and queued), after any that the time before it made.
    @discardableResult
    mutating func handle(_ fix: Fix) async throws -> [ReportDecision] {
        let due = try passTime(to: fix.timestamp)
        summary.observe(fix)
        let decisions = policy.handle(fix)
        try emit(decisions)
        return due + decisions
    }

    mutating func finish() async throws {
        try emit(policy.finish())
        var outcome = ReportDeliverer.Outcome()
        if let wake, let drainTask, let deliverer {
            wake.finish()
            // A drain stuck retrying a dead server would never end: stop it, then try once more, bounded.
            drainTask.cancel()
            outcome = await drainTask.value
            if outcome.stoppedBy == nil {
                // A last, bounded try for what is left (the queue keeps the rest for the next run).
                let last = await deliverer.drain(maximumAttempts: 3)
                outcome.delivered += last.delivered
                outcome.stoppedBy = last.stoppedBy
                // The drain task says why it stopped; this last try must too (a 401 met only here, after a
                // retry had the drain task waiting, went to the summary alone).
                if let error = last.stoppedBy { printError("upload stopped: \(error.message); the queue is kept") }
            }
        }
        printSummary(outcome)
        if let error = outcome.stoppedBy {
            switch error.code {
            case .unauthorized: throw ExitCode(77)
            case .wrongServer, .unknownDevice, .badURL: throw ExitCode(78)
            case .diskFull: throw ExitCode(73)
            default: throw ExitCode(75)  // EX_TEMPFAIL: the queue will be sent next time
            }
        }
    }

    private mutating func emit(_ decisions: [ReportDecision]) throws {
        summary.record(decisions)
        for decision in decisions {
            printDecision(decision)
            if let queue {
                do {
                    try queue.enqueue(decision, at: Date())
                } catch let error as ReportingError where error.code == .diskFull {
                    printError("cannot queue the \(decision.kind.rawValue) report: \(error.message)")
                    throw ExitCode(73)  // EX_CANTCREAT
                }
                wake?.yield()
            }
        }
    }

    private func printDecision(_ decision: ReportDecision) {
        let p = decision.point
        switch format {
        case .text:
            let coordinate = String(format: "%.6f,%.6f", p.latitude, p.longitude)
            let kind = decision.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            print("\(Self.iso(p.timestamp))  \(kind) \(coordinate)  ±\(Int(p.horizontalAccuracy.rounded())) m  \(decision.reason)")
        case .json:
            let object: [String: Any] = [
                "type": "decision", "kind": decision.kind.rawValue, "time": p.time,
                "decided_at": decision.decidedAt.timeIntervalSince1970, "lat": p.latitude, "lon": p.longitude,
                "reason": decision.reason,
            ]
            printJSON(object)
        }
    }

    private func printSummary(_ outcome: ReportDeliverer.Outcome) {
        let sed = summary.sed
        let maxSED = sed.max() ?? 0
        let p95 = ReportSummary.quantile(sed, 0.95) ?? 0
        let state = try? queue?.state()
        switch format {
        case .text:
            print("""
                summary (\(policy.name)):
                  fixes seen          \(summary.fixesSeen)
                  uploaded            \(summary.uploads) (\(String(format: "%.1f", summary.uploadedPercent)) %)
                  per moving hour     \(String(format: "%.1f", summary.uploadsPerMovingHour)) (moving \(Self.duration(summary.movingSeconds)))
                  SED while moving    max \(String(format: "%.1f", maxSED)) m, p95 \(String(format: "%.1f", p95)) m
                  settled             \(Self.duration(summary.settledSeconds)), \(summary.uploadsWhileSettled) uploads while settled\(summary.uploadsWhileSettled == 0 && summary.settledSeconds > 0 ? " (silent)" : "")
                  queue               \(queueLine(state, outcome))
                """)
        case .json:
            var object: [String: Any] = [
                "type": "summary", "policy": policy.name, "fixes": summary.fixesSeen, "uploads": summary.uploads,
                "uploaded_percent": summary.uploadedPercent, "uploads_per_moving_hour": summary.uploadsPerMovingHour,
                "moving_seconds": summary.movingSeconds, "settled_seconds": summary.settledSeconds,
                "uploads_while_settled": summary.uploadsWhileSettled, "max_sed": maxSED, "p95_sed": p95,
                "delivered": outcome.delivered,
            ]
            if let state { object["queued"] = state.count }
            if let error = outcome.stoppedBy { object["error"] = error.message }
            printJSON(object)
        }
    }

    private func queueLine(_ state: QueueState?, _ outcome: ReportDeliverer.Outcome) -> String {
        guard let queue, let endpoint else { return "none (--dry-run)" }
        var line = "\(outcome.delivered) delivered to \(endpoint.redacted), \(state?.count ?? -1) waiting in \(queue.path ?? "memory")"
        if let thinned = state?.thinned, thinned > 0 { line += ", \(thinned) thinned" }
        if !outcome.waits.isEmpty { line += ", \(outcome.waits.count) retries" }
        if let error = outcome.stoppedBy { line += "; stopped: \(error.message)" }
        return line
    }

    private func printJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
            print(String(decoding: data, as: UTF8.self))
        }
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func duration(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h \(String(format: "%02d", minutes % 60)) min" : "\(minutes) min"
    }
}

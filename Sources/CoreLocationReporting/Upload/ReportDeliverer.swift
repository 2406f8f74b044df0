import Foundation
import Logging

/// Drains the queue to the server: oldest first, in order, one acknowledged report at a time.
///
/// A retryable failure waits (`Backoff`, through the injected `sleep`, so tests wait for nothing)
/// and tries the same oldest report again: nothing is skipped and nothing overtakes. A permanent
/// failure (bad credentials, wrong server, unknown device) stops the drain and keeps the queue.
public actor ReportDeliverer {
    public struct Outcome: Sendable {
        /// Reports acknowledged in this drain.
        public var delivered = 0
        /// The waits between attempts, seconds.
        public var waits: [Double] = []
        /// The error that stopped the drain: a permanent one, or the last retryable one after
        /// `maximumAttempts` failures in a row. Nil when the queue was emptied.
        public var stoppedBy: ReportingError?

        public init() {}
    }

    private let queue: ReportQueue
    private let uploader: any ReportUploader
    private var backoff: Backoff
    private let sleep: @Sendable (Double) async throws -> Void
    private let logger: Logger

    public init(
        queue: ReportQueue, uploader: any ReportUploader, backoff: Backoff = Backoff(),
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        logger: Logger = Logger(label: "corelocation.reporting")
    ) {
        self.queue = queue
        self.uploader = uploader
        self.backoff = backoff
        self.sleep = sleep
        self.logger = logger
    }

    /// Sends until the queue is empty, a permanent error, or `maximumAttempts` failures in a row
    /// (nil: keep trying, as a long-lived reporter does).
    public func drain(batch: Int = 100, maximumAttempts: Int? = nil) async -> Outcome {
        var outcome = Outcome()
        var failuresInARow = 0
        backoff.reset()
        while !Task.isCancelled {
            let reports: [QueuedReport]
            do {
                reports = try queue.oldest(batch)
            } catch {
                outcome.stoppedBy = error as? ReportingError
                return outcome
            }
            if reports.isEmpty { return outcome }
            for report in reports {
                do {
                    try await uploader.send(report)
                } catch let error as ReportingError where error.isRetryable {
                    failuresInARow += 1
                    try? queue.countAttempt(report.sequence)
                    if let maximumAttempts, failuresInARow >= maximumAttempts {
                        outcome.stoppedBy = error
                        return outcome
                    }
                    let wait = backoff.next(retryAfter: error.retryAfter)
                    logger.info("Upload failed (\(error.message)); retrying in \(Int(wait.rounded())) s")
                    outcome.waits.append(wait)
                    do { try await sleep(wait) } catch { return outcome }
                    break
                } catch {
                    outcome.stoppedBy =
                        error as? ReportingError
                        ?? ReportingError(code: .transport, message: "upload failed", underlying: nil)
                    return outcome
                }
                failuresInARow = 0
                backoff.reset()
                do {
                    try queue.remove([report.sequence])
                } catch {
                    outcome.stoppedBy = error as? ReportingError
                    return outcome
                }
                outcome.delivered += 1
            }
        }
        return outcome
    }
}

/// Sends one queued report and returns when the server has acknowledged it.
///
/// Throws `ReportingError`: retryable codes (`serverError`, `transport`) mean "try again later"
/// (the report may or may not have been stored; its idempotency key makes the retry safe); any
/// other code means trying again will not help (bad credentials, wrong server, unknown device).
public protocol ReportUploader: Sendable {
    func send(_ report: QueuedReport) async throws
}

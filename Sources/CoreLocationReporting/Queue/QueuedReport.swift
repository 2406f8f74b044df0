import Foundation

/// A report waiting in the queue.
public struct QueuedReport: Sendable, Hashable {
    /// Position in the queue (oldest first).
    public var sequence: Int64
    /// The idempotency key: the device, the kind and the fix's own time (ms). The same point queued
    /// or sent twice has the same key, so the server can drop the second copy.
    public var key: String
    public var kind: ReportKind
    /// The point, with the fix's own time.
    public var point: ReportPoint
    /// When it was queued (send-side bookkeeping only; never sent as the fix time).
    public var enqueuedAt: Date
    /// Sending attempts so far.
    public var attempts: Int

    public static func key(device: String, kind: ReportKind, time: Date) -> String {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded())
        return "\(device):\(kind.rawValue):\(milliseconds)"
    }
}

/// What the queue holds, for summaries.
public struct QueueState: Sendable, Hashable {
    public var count: Int
    public var oldest: Date?
    public var newest: Date?
    /// Points removed by thinning since the queue was opened.
    public var thinned: Int
    /// Of those, removed although they were more than ε off the track that remained.
    public var thinnedBeyondEpsilon: Int
}

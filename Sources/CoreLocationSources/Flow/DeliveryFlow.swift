import Foundation

/// Backpressure between a producer of events (a replay, a stream reader) and their consumer (the
/// delegate calls of the thread that runs an app's callbacks): a count of events handed downstream
/// and not yet consumed, bounded by `limit`.
///
/// The consumer side calls `sent` when it queues an event and `done` when it has run it. The producer
/// asks before producing more: `whenReady` (asynchronous, for sources timed by a `Scheduler`) runs its
/// continuation at once while fewer than `limit` events are in flight, otherwise once the consumer
/// has brought the count down to half the limit; `waitUntilReady` (blocking, for reader threads)
/// does the same by waiting. So memory between source and delivery stays bounded whatever the
/// length of a recording and whatever the replay speed; a slow consumer slows the replay.
public final class DeliveryFlow: @unchecked Sendable {  // safe: every stored var is used only with `condition` locked

    /// Most events in flight before the producer waits.
    public let limit: Int
    private let condition = NSCondition()
    private var inFlightCount = 0
    private var waiters: [@Sendable () -> Void] = []
    /// Set while `done` runs waiters it resumed (outside the lock): a `whenReady` meanwhile queues
    /// behind them, so continuations run in the order they were registered (see `whenReady`).
    private var isResuming = false

    /// - Parameter limit: events in flight before the producer waits, ≥ 2.
    public init(limit: Int = 256) {
        self.limit = max(2, limit)
    }

    /// Events queued downstream and not yet run.
    public var inFlight: Int {
        condition.lock()
        defer { condition.unlock() }
        return inFlightCount
    }

    /// The consumer queued `count` events.
    public func sent(_ count: Int = 1) {
        condition.lock()
        inFlightCount += count
        condition.unlock()
    }

    /// The consumer ran `count` events; wakes the producer once half the limit is free.
    public func done(_ count: Int = 1) {
        condition.lock()
        inFlightCount = max(0, inFlightCount - count)
        if inFlightCount <= limit / 2 { condition.broadcast() }
        guard inFlightCount <= limit / 2, !waiters.isEmpty, !isResuming else {
            condition.unlock()
            return
        }
        isResuming = true
        repeat {
            let resumed = waiters
            waiters.removeAll()
            condition.unlock()
            for resume in resumed { resume() }
            condition.lock()
        } while !waiters.isEmpty && inFlightCount < limit
        isResuming = false
        condition.unlock()
    }

    /// True when a producer may go on at once: fewer than `limit` events in flight, and no earlier
    /// producer waiting (its turn comes first).
    public var isReady: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isReadyLocked
    }

    private var isReadyLocked: Bool { inFlightCount < limit && waiters.isEmpty && !isResuming }

    /// Runs `resume` now (on the caller's thread) if the flow `isReady`, else on the consumer's thread
    /// once it has caught up.
    ///
    /// Continuations run in the order they were registered: one registered while others wait (the
    /// count may be below the limit and above the half at which they resume), or while `done` is still
    /// running them, queues behind them. A replay's timeline relies on it: its source's next step is
    /// scheduled before the timeline goes on (`ReplayScheduler`), or an engine timer would run first.
    public func whenReady(_ resume: @escaping @Sendable () -> Void) {
        condition.lock()
        guard !isReadyLocked else {
            condition.unlock()
            resume()
            return
        }
        waiters.append(resume)
        condition.unlock()
    }

    /// Blocks until fewer than `limit` events are in flight or `timeout` seconds pass; true when
    /// ready. Reader threads call it in a loop, checking between calls whether they were stopped.
    public func waitUntilReady(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while inFlightCount >= limit {
            if !condition.wait(until: deadline) { return inFlightCount < limit }
        }
        return true
    }
}

/// A source that can slow down for its consumer: the runtime that owns it attaches its flow.
public protocol FlowControlledSource: AnyObject {
    /// Makes the source wait for `flow` before producing more events.
    func attach(_ flow: DeliveryFlow)
}

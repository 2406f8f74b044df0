import Dispatch
import Foundation
import Synchronization

/// A handle to work scheduled on a `Scheduler`.
public protocol ScheduledWork: Sendable {
    func cancel()
}

/// Time for everything outside the engine: "now" on a monotonic timeline in seconds, the wall clock
/// that goes with it, and work to run at a deadline.
///
/// Real programs use `DispatchScheduler`; tests use `ManualScheduler` and advance time by hand, so
/// hours of simulated movement run in milliseconds and give the same answer every time.
public protocol Scheduler: Sendable {
    /// Monotonic seconds.
    var now: Double { get }
    /// The wall-clock date for a monotonic instant.
    func wallClock(at instant: Double) -> Date
    /// Runs `work` once at or after `deadline` (monotonic seconds).
    @discardableResult
    func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork
}

extension Scheduler {
    public var wallNow: Date { wallClock(at: now) }
}

/// Real time: `DispatchTime` for the timeline, `Date()` at start-up for the wall clock.
public final class DispatchScheduler: Scheduler {
    private let queue: DispatchQueue
    private let origin = DispatchTime.now()
    private let wallOrigin = Date()

    public init(queue: DispatchQueue = DispatchQueue(label: "corelocation.scheduler")) {
        self.queue = queue
    }

    public var now: Double {
        Double(DispatchTime.now().uptimeNanoseconds - origin.uptimeNanoseconds) / 1e9
    }

    public func wallClock(at instant: Double) -> Date {
        wallOrigin.addingTimeInterval(instant)
    }

    @discardableResult
    public func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let handle = DispatchWork()
        let delay = max(0, deadline - now)
        queue.asyncAfter(deadline: .now() + delay) {
            if !handle.isCancelled { work() }
        }
        return handle
    }

    private final class DispatchWork: ScheduledWork {
        private let cancelled = Atomic(false)
        var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
        func cancel() { cancelled.store(true, ordering: .releasing) }
    }
}

/// A scheduler whose time moves only when a test says so. Ships with the library so that every
/// user of the engine can test time-dependent code the same way.
public final class ManualScheduler: Scheduler {
    private struct Pending {
        var deadline: Double
        var sequence: Int
        var work: @Sendable () -> Void
    }

    private struct State {
        var now: Double = 0
        var sequence = 0
        var pending: [Int: Pending] = [:]
    }

    private let state = Mutex(State())
    private let wallOrigin: Date

    /// - Parameter wallOrigin: the wall-clock date at monotonic time zero.
    public init(wallOrigin: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.wallOrigin = wallOrigin
    }

    public var now: Double { state.withLock { $0.now } }

    public func wallClock(at instant: Double) -> Date { wallOrigin.addingTimeInterval(instant) }

    /// How many pieces of work are waiting.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    @discardableResult
    public func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let id = state.withLock { state in
            state.sequence += 1
            state.pending[state.sequence] = Pending(deadline: deadline, sequence: state.sequence, work: work)
            return state.sequence
        }
        return ManualWork(id: id, scheduler: self)
    }

    fileprivate func cancel(_ id: Int) {
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
    }

    /// Moves time forward by `seconds`, running every piece of work that falls due, in deadline
    /// order, with `now` set to each deadline as it runs (work may schedule more work).
    public func advance(by seconds: Double) {
        let end = state.withLock { $0.now } + seconds
        while let next = state.withLock({ state -> Pending? in
            guard
                let first = state.pending.values
                    .filter({ $0.deadline <= end })
                    .min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) })
            else { return nil }
            state.pending.removeValue(forKey: first.sequence)
            state.now = max(state.now, first.deadline)
            return first
        }) {
            next.work()
        }
        state.withLock { $0.now = max($0.now, end) }
    }

    /// Runs everything already due at the current time.
    public func runDue() { advance(by: 0) }

    private struct ManualWork: ScheduledWork {
        let id: Int
        let scheduler: ManualScheduler
        func cancel() { scheduler.cancel(id) }
    }
}

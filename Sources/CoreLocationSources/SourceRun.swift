import CoreLocationEngine
import Foundation
import Synchronization

/// The start/stop lifecycle every source shares. A run is numbered: an event, a timer or a late answer of a run
/// that was stopped (or started again) finds its number stale and is dropped. The handler and the number live under
/// one lock beside the source's own state (`Extra`), so "still this run?" and the change it guards are one step.
///
/// Made with `exclusiveDelivery`, events are handed while a recursive lock is held that `exclusively` takes too
/// (sources take it in `start` and `stop`): nothing is delivered after `stop()` returns, and a handler may call
/// `stop()` or `start(_:)` itself.
///
/// Inside `withLock`, the source's own fields read as the run's (`run.timer` for `run.extra.timer`).
public final class SourceRun<Extra: Sendable, Event: Sendable>: Sendable {
    public typealias Handler = @Sendable (Event) -> Void

    @dynamicMemberLookup
    public struct Run: Sendable {
        /// The current run's number; a new `start` or a `stop` makes every earlier number stale.
        public fileprivate(set) var generation = 0
        /// Where the current run's events go; nil while stopped.
        public fileprivate(set) var handler: Handler?
        public var extra: Extra

        public var isRunning: Bool { handler != nil }

        /// Whether `generation` is the running run's number.
        public func isCurrent(_ generation: Int) -> Bool { self.generation == generation && handler != nil }

        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Extra, Value>) -> Value {
            get { extra[keyPath: keyPath] }
            // In place, not get-then-set: a source's state holds decoders and buffers that a mutation through a
            // copy would duplicate (NMEA replays, gpsd's decoder).
            _modify { yield &extra[keyPath: keyPath] }
        }
    }

    private let run: Mutex<Run>
    private let delivery: NSRecursiveLock?

    /// A run of a source whose events are `Event`s (a heading source's, a sensor's samples).
    public init(_ extra: Extra, events: Event.Type, exclusiveDelivery: Bool = false) {
        run = Mutex(Run(extra: extra))
        delivery = exclusiveDelivery ? NSRecursiveLock() : nil
    }

    /// Begins a new run that hands its events to `handler`; `prepare` readies the source's state for it under the
    /// same lock (the run's number is set already). Returns the run's number and what `prepare` returned.
    @discardableResult
    public func start<T>(_ handler: @escaping Handler, _ prepare: (inout Run) -> T) -> (generation: Int, T) {
        run.withLock { run in
            run.generation += 1
            run.handler = handler
            return (run.generation, prepare(&run))
        }
    }

    /// Begins a new run; returns its number.
    @discardableResult
    public func start(_ handler: @escaping Handler) -> Int { start(handler) { _ in }.generation }

    /// Ends the run; `release` takes from the source's state, under the same lock, what must be let go of outside
    /// it (timers, channels). It sees the run as it was (`isRunning`: whether one was running). Returns what
    /// `release` returned.
    @discardableResult
    public func stop<T>(_ release: (inout Run) -> T) -> T {
        run.withLock { run in
            defer {
                run.generation += 1
                run.handler = nil
            }
            return release(&run)
        }
    }

    public func stop() { stop { _ in } }

    /// Whether `generation` is the running run's number (a reader thread's loop condition).
    public func isCurrent(_ generation: Int) -> Bool { run.withLock { $0.isCurrent(generation) } }

    public func withLock<T>(_ body: (inout Run) -> T) -> T { run.withLock { body(&$0) } }

    /// `body` on the run's state while `generation` is the running run; nil (and `body` not called) otherwise.
    @discardableResult
    public func ifCurrent<T>(_ generation: Int, _ body: (inout Run) -> T) -> T? {
        run.withLock { run in run.isCurrent(generation) ? body(&run) : nil }
    }

    /// Hands `events` to the handler of run `generation` while it is the running run, checked again before each
    /// (a handler may stop the run). False when the run is over.
    @discardableResult
    public func emit(_ events: [Event], _ generation: Int) -> Bool {
        exclusively {
            guard let handler = run.withLock({ $0.isCurrent(generation) ? $0.handler : nil }) else { return false }
            for event in events {
                guard run.withLock({ $0.isCurrent(generation) }) else { return false }
                handler(event)
            }
            return true
        }
    }

    @discardableResult
    public func emit(_ event: Event, _ generation: Int) -> Bool { emit([event], generation) }

    /// `body` under the delivery lock (with `exclusiveDelivery`; else just `body`): what must not interleave with a
    /// delivery, as `start` and `stop` of a source that promises nothing after `stop()`.
    public func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        guard let delivery else { return try body() }
        delivery.lock()
        defer { delivery.unlock() }
        return try body()
    }
}

extension SourceRun where Event == SourceEvent {
    /// A location source's run.
    public convenience init(_ extra: Extra, exclusiveDelivery: Bool = false) {
        self.init(extra, events: SourceEvent.self, exclusiveDelivery: exclusiveDelivery)
    }
}

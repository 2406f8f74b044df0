import Dispatch
import Foundation

/// A replay's timeline: the time of a recording, passed at `speed` times its pace, or as fast as
/// the consumer takes it (`speed` = `.infinity`).
///
/// The rule for every replay (decision 0020): the engine, the sources and their timers run on the
/// recording's timeline, so a replay gives the same fixes, regions, visits and pauses at any speed.
/// `now` is a virtual clock: it moves only from one scheduled deadline to the next, in deadline order
/// (ties in scheduling order), and is exactly that deadline while its work runs. `speed` decides
/// only when, on the real clock, each step runs: `speed` = 10 runs a step due 10 s later on the
/// timeline 1 s later; `.infinity` runs it at once. A step scheduled in the past runs at `now`.
///
/// Backpressure: with a `DeliveryFlow` attached, the timeline waits after each step until the
/// consumer has caught up (`DeliveryFlow.whenReady`), so an engine timer never jumps ahead of a
/// source that is waiting for its consumer. The source registered its own `whenReady` first (it
/// runs inside the step), so it is resumed, and schedules its next step, before the timeline goes
/// on. After such a wait, or while nothing is scheduled, the pace starts again from the real clock's
/// present (no burst to catch up).
///
/// Work runs on one thread of its own, one step at a time; `shutdown()` ends it.
public final class ReplayScheduler: Scheduler, @unchecked Sendable {  // safe: every var is guarded by `condition`
    // @unchecked Sendable is safe: every stored `var` is read and written only with `condition`
    // locked; the `let`s are immutable (`DeliveryFlow` is itself thread-safe).

    /// Multiple of the recording's pace, > 0; `.infinity` = as fast as possible.
    public let speed: Double
    private let wallOrigin: Date
    private let condition = NSCondition()
    private var current: Double = 0
    private var sequence = 0
    private var pending: [Step] = []
    private var cancelled: Set<Int> = []
    /// Real time (uptime nanoseconds) and timeline instant that pace is measured from.
    private var anchor: (real: UInt64, instant: Double)?
    private var flow: DeliveryFlow?
    private var isShutDown = false
    private var isRunning = false
    /// `holding` calls under way: no new step starts, and no step continues inline, while any is.
    private var holds = 0

    private struct Step {
        var deadline: Double
        var sequence: Int
        var work: @Sendable () -> Void
    }

    /// - Parameters:
    ///   - speed: multiple of the recording's pace, > 0 (values ≤ 0 or NaN are taken as 1);
    ///     `.infinity` for as fast as possible.
    ///   - wallOrigin: the date of timeline instant 0 (for a route with times, its recorded start).
    public init(speed: Double, wallOrigin: Date) {
        self.speed = speed > 0 ? speed : 1
        self.wallOrigin = wallOrigin
    }

    /// Makes the timeline wait for `flow`'s consumer after each step.
    public func attach(_ flow: DeliveryFlow) {
        condition.lock()
        self.flow = flow
        condition.unlock()
    }

    public var now: Double {
        condition.lock()
        defer { condition.unlock() }
        return current
    }

    public func wallClock(at instant: Double) -> Date { wallOrigin.addingTimeInterval(instant) }

    @discardableResult
    public func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        condition.lock()
        sequence += 1
        let id = sequence
        pending.append(Step(deadline: deadline.isNaN ? current : deadline, sequence: id, work: work))
        let start = !isRunning && !isShutDown
        isRunning = isRunning || start
        condition.broadcast()
        condition.unlock()
        if start {
            NamedThread.start("cl-replay") { [self] in run() }
        }
        return Work(id: id, scheduler: self)
    }

    /// Moves the timeline on to `instant` from inside the step that is running, when nothing else would
    /// run first: the timeline runs as fast as possible, no other step is due at or before `instant`, and
    /// the attached flow's consumer is not behind. A source replaying a recording then hands out its next
    /// event in the same step instead of scheduling one, which is what the timeline would have done next
    /// anyway, minus a hand-over per event. False otherwise: the caller schedules a step as usual.
    ///
    /// Call it only from work running on the timeline (the step's own thread).
    public func continueInline(to instant: Double) -> Bool {
        condition.lock()
        let flow = self.flow
        let target = max(instant.isNaN ? current : instant, current)
        let isFree = speed == .infinity && !isShutDown && holds == 0 && !pending.contains { $0.deadline <= target }
        if isFree, flow?.isReady ?? true {
            current = target
            condition.unlock()
            return true
        }
        condition.unlock()
        return false
    }

    /// Runs `body` while the timeline starts no other step and lets no step continue inline (the step running, if
    /// any, goes on): what must happen at one instant from outside the timeline happens before the timeline moves
    /// on. `EngineHost` powers sources under it, so that two replays started together (a GNSS recording and its
    /// IMU's) both start at the same instant however fast the timeline runs. May be called from a step itself.
    public func holding<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        holds += 1
        condition.unlock()
        defer {
            condition.lock()
            holds -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Ends the timeline's thread after the step it is running; nothing scheduled runs after that.
    public func shutdown() {
        condition.lock()
        isShutDown = true
        pending.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    fileprivate func cancel(_ id: Int) {
        condition.lock()
        if let index = pending.firstIndex(where: { $0.sequence == id }) { pending.remove(at: index) }
        condition.unlock()
    }

    /// The timeline's loop: the earliest step, at its time on the real clock, then the consumer.
    private func run() {
        while let step = nextStep() {
            // Consumers on other threads are woken once, when the step is over, not once per event it
            // handed out (a step of a fast replay hands out many).
            WakeUpDeferral.collecting { step.work() }
            waitForConsumer()
        }
    }

    /// Blocks until the earliest step is due on the real clock; nil once shut down.
    private func nextStep() -> Step? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isShutDown { return nil }
            if holds > 0 {
                condition.wait()
                continue
            }
            guard let index = earliest() else {
                anchor = nil
                condition.wait()
                continue
            }
            let step = pending[index]
            let instant = max(step.deadline, current)
            if speed.isFinite {
                let real = DispatchTime.now().uptimeNanoseconds
                let from = anchor ?? (real, current)
                anchor = from
                let due = Double(from.real) + (instant - from.instant) / speed * 1e9
                if due > Double(real) {
                    // A step scheduled meanwhile for an earlier time wakes this wait.
                    _ = condition.wait(until: Date(timeIntervalSinceNow: (due - Double(real)) / 1e9))
                    continue
                }
            }
            pending.remove(at: index)
            current = instant
            return step
        }
    }

    private func earliest() -> Int? {
        pending.indices.min { (pending[$0].deadline, pending[$0].sequence) < (pending[$1].deadline, pending[$1].sequence) }
    }

    /// Waits until the attached flow's consumer has caught up (checking every 250 ms for shutdown).
    private func waitForConsumer() {
        condition.lock()
        let flow = self.flow
        condition.unlock()
        guard let flow else { return }
        let ready = DispatchSemaphore(value: 0)
        flow.whenReady { ready.signal() }
        var waited = false
        while ready.wait(timeout: .now() + 0.25) == .timedOut {
            waited = true
            condition.lock()
            let stop = isShutDown
            condition.unlock()
            if stop { return }
        }
        if waited {
            condition.lock()
            anchor = nil
            condition.unlock()
        }
    }

    private struct Work: ScheduledWork {
        let id: Int
        let scheduler: ReplayScheduler
        func cancel() { scheduler.cancel(id) }
    }
}

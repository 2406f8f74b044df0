import CoreLocationSources
import Synchronization

/// The background sweep's one timer (decision 0039): armed for a single deadline at a time (the
/// next pending event's expiry or the next launch an app waits for), and not at all when there is
/// none, so an idle daemon never wakes for it. Deadlines are the scheduler's monotonic seconds; a
/// fired timer is disarmed before its work runs, so the work may arm it again.
final class SweepTimer: Sendable {
    private struct Armed {
        var deadline: Double
        var generation: UInt64
        var work: any ScheduledWork
    }

    private struct State {
        var armed: Armed?
        var generation: UInt64 = 0
        var fired: UInt64 = 0
    }

    private let scheduler: any Scheduler
    private let fire = Mutex<(@Sendable () -> Void)?>(nil)
    private let state = Mutex(State())

    init(scheduler: any Scheduler) {
        self.scheduler = scheduler
    }

    /// What runs when a deadline comes (on the scheduler's thread).
    func onFire(_ work: @escaping @Sendable () -> Void) {
        fire.withLock { $0 = work }
    }

    /// The armed deadline (monotonic seconds), nil when the timer sleeps.
    var deadline: Double? { state.withLock { $0.armed?.deadline } }

    /// How many times the timer fired (tests and the idle benchmark's account of wake-ups).
    var firings: UInt64 { state.withLock { $0.fired } }

    /// Arms the timer for `deadline`, replacing what was armed; nil disarms it.
    func set(_ deadline: Double?) {
        let stale = state.withLock { state -> (any ScheduledWork)? in
            if state.armed?.deadline == deadline { return nil }
            let stale = state.armed?.work
            state.armed = nil
            if let deadline {
                let armed = arm(deadline, &state)
                state.armed = armed
            }
            return stale
        }
        stale?.cancel()
    }

    /// Arms the timer for `deadline` unless it is armed for an earlier one already.
    func lower(to deadline: Double) {
        let stale = state.withLock { state -> (any ScheduledWork)? in
            if let armed = state.armed, armed.deadline <= deadline { return nil }
            let stale = state.armed?.work
            let armed = arm(deadline, &state)
            state.armed = armed
            return stale
        }
        stale?.cancel()
    }

    private func arm(_ deadline: Double, _ state: inout State) -> Armed {
        state.generation += 1
        let generation = state.generation
        let work = scheduler.schedule(at: deadline) { [weak self] in self?.fired(generation) }
        return Armed(deadline: deadline, generation: generation, work: work)
    }

    private func fired(_ generation: UInt64) {
        let current = state.withLock { state -> Bool in
            guard state.armed?.generation == generation else { return false }
            state.armed = nil
            state.fired += 1
            return true
        }
        if current, let work = fire.withLock({ $0 }) { work() }
    }
}

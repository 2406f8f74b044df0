
/// A sensor read at a fixed rate on a `Scheduler` while started (the IIO barometer and magnetometer): each run
/// is numbered, so a tick of a stopped or restarted run delivers nothing; a slow read does not pile ticks up (the
/// next one is at `max(deadline + interval, now)`).
public final class SamplingLoop<Event: Sendable>: Sendable {
    private struct Sampling: Sendable {
        var work: (any ScheduledWork)?
    }

    private let scheduler: any Scheduler
    private let interval: Double
    private let run = SourceRun(Sampling(), events: Event.self)

    public init(scheduler: any Scheduler, interval: Double) {
        self.scheduler = scheduler
        self.interval = interval
    }

    /// Reads at once and then every `interval` seconds, handing each event to `handler`. `read` returns nil when
    /// its owner is gone (it captures the owner weakly: the owner keeps this loop), which ends the run.
    public func start(_ handler: @escaping @Sendable (Event) -> Void, read: @escaping @Sendable () -> Event?) {
        let (generation, _) = run.start(handler) { $0.work?.cancel() }
        schedule(generation, at: scheduler.now, read)
    }

    public func stop() {
        run.stop { run in
            run.work?.cancel()
            run.work = nil
        }
    }

    private func schedule(_ generation: Int, at deadline: Double, _ read: @escaping @Sendable () -> Event?) {
        let work = scheduler.schedule(at: deadline) { [weak self] in self?.tick(generation, at: deadline, read) }
        run.withLock { run in
            if run.isCurrent(generation) { run.work = work } else { work.cancel() }
        }
    }

    private func tick(_ generation: Int, at deadline: Double, _ read: @escaping @Sendable () -> Event?) {
        guard let event = read() else { return }
        guard run.emit(event, generation) else { return }
        schedule(generation, at: max(deadline + interval, scheduler.now), read)
    }
}

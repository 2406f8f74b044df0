import CoreLocationEngine
import CoreLocationSources
import Synchronization

/// What a modem source shares with every other one: while started it listens to the `ModemManagerSession` and
/// adds its demand (GNSS or the cell); a run is numbered, so an event or a late answer of a stopped run is never
/// delivered. `Extra` is the source's own state, kept under the same lock as the run so that "still this run?"
/// and the change it guards are one step.
final class ModemSessionRun<Extra: Sendable>: Sendable {
    private struct Run {
        var handler: (@Sendable (SourceEvent) -> Void)?
        var token: Int?
        var generation = 0
        var extra: Extra
    }

    private let session: ModemManagerSession
    private let demand: ModemDemand
    private let run: Mutex<Run>

    init(session: ModemManagerSession, demand: ModemDemand, extra: Extra) {
        self.session = session
        self.demand = demand
        run = Mutex(Run(extra: extra))
    }

    /// Starts a run: `reset` prepares the source's state, `events` hears the session with the run's number.
    func start(
        _ handler: @escaping @Sendable (SourceEvent) -> Void, reset: (inout Extra) -> Void = { _ in },
        events: @escaping @Sendable (ModemSessionEvent, Int) -> Void
    ) {
        let generation = run.withLock { run in
            run.handler = handler
            run.generation += 1
            reset(&run.extra)
            return run.generation
        }
        let session = session
        let demand = demand
        Task {
            let token = await session.addListener { event in events(event, generation) }
            let stale = run.withLock { run -> Bool in
                guard run.generation == generation else { return true }
                run.token = token
                return false
            }
            if stale { return await session.removeListener(token) }
            await session.changeDemand(demand, by: 1)
        }
    }

    func stop() {
        let token = run.withLock { run -> Int?? in
            guard run.handler != nil else { return nil }
            run.handler = nil
            run.generation += 1
            defer { run.token = nil }
            return .some(run.token)
        }
        guard let token else { return }
        let session = session
        let demand = demand
        Task {
            if let token { await session.removeListener(token) }
            await session.changeDemand(demand, by: -1)
        }
    }

    /// `body` on the source's state if `generation` is still the current run; nil otherwise.
    func ifCurrent<T>(_ generation: Int, _ body: (inout Extra) -> T) -> T? {
        run.withLock { run in run.generation == generation ? body(&run.extra) : nil }
    }

    /// `body` on the source's state, whatever the run.
    func withExtra<T>(_ body: (inout Extra) -> T) -> T { run.withLock { body(&$0.extra) } }

    /// Delivers `event` if `generation` is still the current run.
    func emit(_ event: SourceEvent, _ generation: Int) {
        let handler = run.withLock { $0.generation == generation ? $0.handler : nil }
        handler?(event)
    }
}

import CoreLocationEngine
import CoreLocationSources

/// What a modem source shares with every other one: while started it listens to the `ModemManagerSession` and
/// adds its demand (GNSS or the cell), on top of the lifecycle every source shares (`SourceRun`: an event or a
/// late answer of a stopped run is never delivered). `Extra` is the source's own state, kept under the same lock
/// as the run so that "still this run?" and the change it guards are one step.
final class ModemSessionRun<Extra: Sendable>: Sendable {
    private struct Listening: Sendable {
        var token: Int?
        var source: Extra
    }

    private let session: ModemManagerSession
    private let demand: ModemDemand
    private let run: SourceRun<Listening, SourceEvent>

    init(session: ModemManagerSession, demand: ModemDemand, extra: Extra) {
        self.session = session
        self.demand = demand
        run = SourceRun(Listening(source: extra))
    }

    /// Starts a run: `reset` prepares the source's state, `events` hears the session with the run's number.
    func start(
        _ handler: @escaping @Sendable (SourceEvent) -> Void, reset: (inout Extra) -> Void = { _ in },
        events: @escaping @Sendable (ModemSessionEvent, Int) -> Void
    ) {
        let (generation, _) = run.start(handler) { reset(&$0.source) }
        let (session, demand, run) = (session, demand, run)
        Task {
            let token = await session.addListener { event in events(event, generation) }
            guard run.ifCurrent(generation, { $0.token = token }) != nil else {
                return await session.removeListener(token)
            }
            await session.changeDemand(demand, by: 1)
        }
    }

    func stop() {
        let token = run.stop { run -> Int?? in
            guard run.isRunning else { return nil }
            defer { run.token = nil }
            return .some(run.token)
        }
        guard let token else { return }
        let (session, demand) = (session, demand)
        Task {
            if let token { await session.removeListener(token) }
            await session.changeDemand(demand, by: -1)
        }
    }

    /// `body` on the source's state if `generation` is still the current run; nil otherwise.
    func ifCurrent<T>(_ generation: Int, _ body: (inout Extra) -> T) -> T? {
        run.ifCurrent(generation) { body(&$0.source) }
    }

    /// `body` on the source's state, whatever the run.
    func withExtra<T>(_ body: (inout Extra) -> T) -> T { run.withLock { body(&$0.source) } }

    /// Delivers `event` if `generation` is still the current run.
    func emit(_ event: SourceEvent, _ generation: Int) { run.emit(event, generation) }
}

/// A test double that ships with the engine: it owns an engine and a hand-moved clock, sends
/// `.tick` whenever time passes a deadline, and records every action. Use it to drive hours of
/// movement through the engine and to assert on what came out.
public struct EngineDriver: Sendable {
    public private(set) var engine: LocationEngine
    public private(set) var now: Double
    public private(set) var actions: [(time: Double, action: EngineAction)] = []

    public init(engine: LocationEngine, startingAt now: Double = 0) {
        self.engine = engine
        self.now = now
    }

    /// Sends one input at the current time; returns its actions.
    @discardableResult
    public mutating func send(_ input: EngineInput) -> [EngineAction] {
        let produced = engine.handle(input, at: now)
        actions += produced.map { (now, $0) }
        return produced
    }

    /// Moves time to `time`, ticking at every deadline on the way.
    public mutating func advance(to time: Double) {
        while let deadline = engine.nextDeadline, deadline <= time {
            now = max(now, deadline)
            send(.tick)
        }
        now = max(now, time)
    }

    public mutating func advance(by seconds: Double) { advance(to: now + seconds) }

    /// Deliveries to one client, in order.
    public func deliveries(to client: ClientID) -> [Delivery] {
        actions.compactMap {
            if case let .deliver(id, delivery) = $0.action, id == client { return delivery }
            return nil
        }
    }

    /// Failures reported to one client, in order.
    public func failures(of client: ClientID) -> [EngineFailure] {
        actions.compactMap {
            if case let .fail(id, failure) = $0.action, id == client { return failure }
            return nil
        }
    }

    /// Which sources are powered according to the actions so far.
    public var poweredSources: Set<SourceID> {
        var powered: Set<SourceID> = []
        for (_, action) in actions {
            switch action {
            case let .powerOn(id): powered.insert(id)
            case let .powerOff(id): powered.remove(id)
            default: break
            }
        }
        return powered
    }

    /// Forgets the recorded actions (the engine keeps its state).
    public mutating func clearRecording() { actions.removeAll() }
}

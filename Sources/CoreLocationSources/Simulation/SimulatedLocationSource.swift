import Foundation
import CoreLocationEngine
import Logging

/// The embedded default source: a fixed place or a replayed route, optionally with realistic noise,
/// timed entirely by a `Scheduler` (so tests drive it with `ManualScheduler`).
///
/// - Fixed place: a fix every second from `start`, horizontalAccuracy 5 m, speed 0
///   (speedAccuracy √2·0.5 m/s, as `SimulatedRoute.kinematics` gives for a 1 s step), course −1,
///   altitude 0 with verticalAccuracy −1 (unknown).
/// - Route: see `RoutePlayer`. The route plays on the scheduler's timeline from the first `start`;
///   while stopped it keeps moving (like the world), and a later `start` first delivers the current
///   position (the last point that fell due while stopped) and then carries on. After the last point
///   comes `.finished` (the route does not loop unless `loops` is set); a `start` after that
///   delivers `.finished` again.
/// - Noise: see `NoiseModel`; its clock is the same timeline.
///
/// Every fix has `isSimulated` true and the scheduler's wall clock at emission as its timestamp (a
/// route's recorded time with `recordedTimes`).
/// Events are delivered on the scheduler's thread, never after `stop()` returns; the handler may
/// call `stop()` or `start(_:)` itself.
public final class SimulatedLocationSource: LocationSource, FlowControlledSource {
    /// Power cost put in the descriptor, milliwatts: the simulator costs next to nothing, but a
    /// nonzero figure keeps rankings well defined.
    public static let powerCost = 1.0

    public let descriptor: SourceDescriptor
    public let scenario: SimulationScenario
    /// Playback speed as a multiple of recorded pace (routes only).
    public let speed: Double

    private let scheduler: any Scheduler
    private let logger: Logger
    /// Delivers exclusively: nothing after `stop()` returns, and a handler may call `stop()`/`start(_:)`.
    private let state: SourceRun<State, SourceEvent>

    private struct State {
        var work: (any ScheduledWork)?
        /// Scheduler time of the first `start`: playback second 0.
        var origin: Double?
        var player: RoutePlayer?
        var noise: NoiseGenerator?
        var resuming = false
        /// The consumer's backpressure, once a runtime attached it.
        var flow: DeliveryFlow?
    }

    /// Fixes handed out per step when many are due at once (`speed` = `.infinity`).
    static let batch = 64

    /// - Parameters:
    ///   - scenario: what to play.
    ///   - speed: multiple of recorded pace, > 0; `.infinity` emits the whole route at once.
    ///   - loops: start a route again after its last point instead of finishing.
    ///   - noise: an error model, or nil for exact positions.
    ///   - rate: a route's fixes per recorded second, interpolated (`RoutePlayer`); nil for its
    ///     recorded points.
    ///   - recordedTimes: stamp a route's fixes with the recording's times (a replay on the
    ///     recording's timeline, `ReplayScheduler`) rather than the scheduler's wall clock.
    ///   - scheduler: time for everything (`DispatchScheduler()` in programs, `ManualScheduler` in tests).
    ///   - id: the source's id in the engine.
    ///   - logger: diagnostics (coordinates only at debug level).
    /// - Throws: `SimulationError.Code.invalidSpeed` unless `speed > 0`.
    public init(
        scenario: SimulationScenario,
        speed: Double = 1,
        loops: Bool = false,
        noise: NoiseModel? = nil,
        rate: Double? = nil,
        recordedTimes: Bool = false,
        scheduler: any Scheduler,
        id: SourceID = SourceID("simulated"),
        logger: Logger = Logger(label: "corelocation.simulation")
    ) throws {
        var initial = State()
        switch scenario {
        case .fixed:
            guard speed > 0 else {
                throw SimulationError(code: .invalidSpeed, message: "speed must be greater than 0, got \(speed)")
            }
        case .route(let route):
            initial.player = try RoutePlayer(
                route: route, speed: speed, loops: loops, rate: rate, recordedTimes: recordedTimes)
        case .gpxFile(let file):
            initial.player = try RoutePlayer(
                stream: file.makeStream(), speed: speed, rate: rate, recordedTimes: recordedTimes)
        }
        initial.noise = noise.map(NoiseGenerator.init(model:))
        self.scenario = scenario
        self.speed = speed
        self.scheduler = scheduler
        self.logger = logger
        self.state = SourceRun(initial, exclusiveDelivery: true)
        self.descriptor = SourceDescriptor(
            id: id, kind: "simulated", expectedAccuracy: RoutePlayer.horizontalAccuracy,
            powerCost: Self.powerCost, isSimulated: true
        )
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        state.exclusively { start(handler, at: scheduler.now) }
        logger.debug("simulated source started", metadata: ["scenario": "\(scenarioName)"])
    }

    private func start(_ handler: @escaping @Sendable (SourceEvent) -> Void, at now: Double) {
        state.start(handler) { state in
            state.work?.cancel()
            let origin = state.origin ?? now
            state.origin = origin
            state.resuming = now > origin
            schedule(&state, deadline: nextDeadline(state, now: now, origin: origin) ?? now)
        }
    }

    public func attach(_ flow: DeliveryFlow) {
        state.withLock { $0.flow = flow }
    }

    public func stop() {
        state.exclusively {
            state.stop { state in
                state.work?.cancel()
                state.work = nil
            }
        }
        logger.debug("simulated source stopped")
    }

    private var scenarioName: String {
        switch scenario {
        case .fixed(let latitude, let longitude): "fixed \(latitude),\(longitude)"
        case .route(let route): "route \(route.name)"
        case .gpxFile(let file): "GPX file \(file.name)"
        }
    }

    /// Scheduler time of the next emission, nil when a route has ended.
    private func nextDeadline(_ state: SourceRun<State, SourceEvent>.Run, now: Double, origin: Double) -> Double? {
        guard let player = state.player else { return now }
        if state.resuming { return now }
        return player.nextDue.map { max(now, origin + $0) }
    }

    private func schedule(_ state: inout SourceRun<State, SourceEvent>.Run, deadline: Double) {
        let generation = state.generation
        state.work = scheduler.schedule(at: deadline) { [weak self] in
            self?.fire(generation: generation, deadline: deadline)
        }
    }

    private func fire(generation: Int, deadline: Double) {
        state.exclusively { fireExclusively(generation: generation, deadline: deadline) }
    }

    private func fireExclusively(generation: Int, deadline: Double) {
        let (running, events, waitFor) = state.withLock { state -> (Bool, [SourceEvent], (DeliveryFlow, Double)?) in
            guard state.isCurrent(generation), let origin = state.origin else { return (false, [], nil) }
            state.work = nil
            // The deadline, not the clock, decides what is due: a scheduler may fire a hair early in
            // floating point, and re-arming for the same deadline would spin.
            let now = max(scheduler.now, deadline)
            let events = produce(&state, now: now, origin: origin)
            // A fixed place ticks on a 1 s grid from `start`; a route goes to its next due point.
            let following = state.player == nil ? now + 1 : nextDeadline(state, now: now, origin: origin)
            guard let next = following else { return (true, events, nil) }
            // With backpressure, the next step is armed once the consumer has caught up.
            if let flow = state.flow { return (true, events, (flow, next)) }
            schedule(&state, deadline: next)
            return (true, events, nil)
        }
        guard running, state.emit(events, generation), let (flow, next) = waitFor else { return }
        flow.whenReady { [weak self] in self?.resume(generation: generation, deadline: next) }
    }

    /// Arms the step at `deadline` unless the source was stopped or restarted meanwhile.
    private func resume(generation: Int, deadline: Double) {
        state.withLock { state in
            guard state.isCurrent(generation), state.work == nil else { return }
            schedule(&state, deadline: deadline)
        }
    }

    /// The events due at `now`: fixes (through the noise model), `.unavailable` when a dropout
    /// starts, `.finished` after a route's last point.
    private func produce(_ state: inout SourceRun<State, SourceEvent>.Run, now: Double, origin: Double) -> [SourceEvent] {
        let timestamp = scheduler.wallClock(at: now)
        var fixes: [Fix]
        if var player = state.player {
            if player.isFinished { return [.finished] }
            fixes = player.advance(to: now - origin, timestamp: timestamp, limit: state.resuming ? .max : Self.batch)
            if state.resuming, let last = fixes.last { fixes = [last] }
            state.player = player
        } else if case .fixed(let latitude, let longitude) = scenario {
            fixes = [
                Fix(
                    latitude: latitude, longitude: longitude,
                    horizontalAccuracy: RoutePlayer.horizontalAccuracy, verticalAccuracy: -1,
                    course: -1, courseAccuracy: -1,
                    speed: 0, speedAccuracy: 2.0.squareRoot() * SimulatedRoute.relativePositionError,
                    timestamp: timestamp, isSimulated: true
                )
            ]
        } else {
            fixes = []
        }
        state.resuming = false
        var events: [SourceEvent] = []
        for fix in fixes {
            guard var noise = state.noise else {
                events.append(.fix(fix))
                continue
            }
            switch noise.apply(to: fix, at: now - origin) {
            case .fix(let noisy): events.append(.fix(noisy))
            case .dropout(started: true): events.append(.unavailable(reason: "simulated signal loss"))
            case .dropout(started: false): break
            }
            state.noise = noise
        }
        if state.player?.isFinished == true { events.append(.finished) }
        return events
    }
}

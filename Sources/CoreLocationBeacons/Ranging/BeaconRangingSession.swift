import CoreLocationSources
import Foundation
import Synchronization

/// The shell around a `BeaconRanger`: it subscribes to a scanner while anything is ranged or monitored, feeds
/// the ranger each advertisement's frames, calls `tick` at the ranger's deadlines on a `Scheduler`, and hands
/// every action to `deliver` (in order, on the scanner's or the scheduler's thread; return quickly).
///
/// When the scanner becomes unavailable (adapter powered off or removed, bluetoothd gone) the readings are
/// cleared and `availabilityChanged(false)` is delivered; cycles go on with what is (not) heard.
public final class BeaconRangingSession: Sendable {
    public enum Output: Sendable, Hashable {
        case action(BeaconRangerAction)
        case availabilityChanged(Bool)
    }

    private struct State {
        var ranger: BeaconRanger
        var subscription: BeaconScanSubscription?
        /// Whether `subscription` asked for every advertisement (while something is ranged).
        var subscribedForRanging = false
        var work: (any ScheduledWork)?
        var deadline: Double?
        var available: Bool?
    }

    private let scanner: any BeaconScanner
    private let scheduler: any Scheduler
    private let deliver: @Sendable (Output) -> Void
    private let state: Mutex<State>
    // Serializes deliveries so actions reach `deliver` in the order the ranger produced them.
    private let delivery = Mutex(())

    public init(
        scanner: any BeaconScanner, scheduler: any Scheduler,
        configuration: BeaconRanger.Configuration = BeaconRanger.Configuration(),
        deliver: @escaping @Sendable (Output) -> Void
    ) {
        self.scanner = scanner
        self.scheduler = scheduler
        self.deliver = deliver
        self.state = Mutex(State(ranger: BeaconRanger(configuration: configuration)))
    }

    deinit {
        state.withLock { state in
            state.work?.cancel()
            state.subscription?.cancel()
        }
    }

    public var isAvailable: Bool { scanner.isAvailable }
    public var rangedConstraints: [BeaconConstraint] { state.withLock { $0.ranger.rangedConstraints } }
    public var monitoredRegions: [String: BeaconConstraint] { state.withLock { $0.ranger.monitoredRegions } }

    public func startRanging(_ constraint: BeaconConstraint) {
        update { $0.startRanging(constraint, at: $1) }
    }

    public func stopRanging(_ constraint: BeaconConstraint) {
        update { ranger, _ in ranger.stopRanging(constraint) }
    }

    /// Watches a region; `state` is one kept from before (`BeaconRanger.startMonitoring`).
    public func startMonitoring(identifier: String, constraint: BeaconConstraint, state: BeaconRegionState = .unknown) {
        update { $0.startMonitoring(identifier: identifier, constraint: constraint, at: $1, state: state) }
    }

    public func stopMonitoring(identifier: String) {
        update { ranger, _ in ranger.stopMonitoring(identifier: identifier) }
    }

    public func requestState(identifier: String) {
        let actions = state.withLock { $0.ranger.requestState(identifier: identifier) }
        send(actions.map(Output.action))
    }

    /// The region's state now, nil when it is not monitored: `requestState` answered to one caller
    /// rather than to everyone who hears the session.
    public func regionState(identifier: String) -> BeaconRegionState? {
        let actions = state.withLock { $0.ranger.requestState(identifier: identifier) }
        for case let .determined(_, state) in actions { return state }
        return nil
    }

    /// Changes the requests, then subscribes/unsubscribes and reschedules as the ranger's activity says. Ranging
    /// wants every advertisement; regions alone only that a beacon is there (a scanner may then listen
    /// passively): a change between the two subscribes anew before leaving the old subscription, so the
    /// scanner never sees its last subscriber go.
    private func update(_ change: (inout BeaconRanger, Double) -> Void) {
        let now = scheduler.now
        let wanted = state.withLock { state -> Bool? in
            change(&state.ranger, now)
            if !state.ranger.isActive {
                state.subscription?.cancel()
                state.subscription = nil
                state.work?.cancel()
                state.work = nil
                state.deadline = nil
                return nil
            }
            let ranging = !state.ranger.rangedConstraints.isEmpty
            return state.subscription == nil || state.subscribedForRanging != ranging ? ranging : nil
        }
        if let ranging = wanted {
            let subscription = scanner.subscribe(wantsEveryAdvertisement: ranging) { [weak self] event in
                self?.handle(event)
            }
            let replaced = state.withLock { state -> (keep: Bool, old: BeaconScanSubscription?) in
                guard state.ranger.isActive, ranging == !state.ranger.rangedConstraints.isEmpty else { return (false, nil) }
                defer {
                    state.subscription = subscription
                    state.subscribedForRanging = ranging
                }
                return (true, state.subscription)
            }
            if replaced.keep { replaced.old?.cancel() } else { subscription.cancel() }
        }
        reschedule()
    }

    private func handle(_ event: BeaconScanEvent) {
        let now = scheduler.now
        switch event {
        case .advertisement(let advertisement):
            let frames = advertisement.frames
            guard !frames.isEmpty else { return }
            let actions = state.withLock { state in
                frames.flatMap { state.ranger.handle($0, rssi: advertisement.rssi, at: now) }
            }
            send(actions.map(Output.action))
            reschedule()
        case .availability(let available):
            let changed = state.withLock { state -> Bool in
                guard state.available != available else { return false }
                state.available = available
                if !available { state.ranger.clearReadings() }
                return true
            }
            if changed { send([.availabilityChanged(available)]) }
        }
    }

    private func reschedule() {
        let plan = state.withLock { state -> Double? in
            guard let deadline = state.ranger.nextDeadline else {
                state.work?.cancel()
                state.work = nil
                state.deadline = nil
                return nil
            }
            if state.deadline == deadline, state.work != nil { return nil }
            state.work?.cancel()
            state.work = nil
            state.deadline = deadline
            return deadline
        }
        guard let plan else { return }
        let work = scheduler.schedule(at: plan) { [weak self] in self?.fire(plan) }
        state.withLock { state in
            if state.deadline == plan { state.work = work } else { work.cancel() }
        }
    }

    private func fire(_ deadline: Double) {
        let now = scheduler.now
        let actions = state.withLock { state -> [BeaconRangerAction] in
            guard state.deadline == deadline else { return [] }
            state.work = nil
            state.deadline = nil
            return state.ranger.tick(at: max(now, deadline))
        }
        send(actions.map(Output.action))
        reschedule()
    }

    private func send(_ outputs: [Output]) {
        guard !outputs.isEmpty else { return }
        delivery.withLock { _ in
            for output in outputs { deliver(output) }
        }
    }
}

import CoreLocationEngine
import CoreLocationRuntime
import Foundation
import Synchronization

/// The records behind one `CLMonitor`, over the runtime's `MonitorSession` (which watches the conditions where
/// the runtime runs: the engine and the beacon scanner in process, or locationd). Events arrive on the
/// runtime's threads and are turned into `CLMonitor.Event`s there, in order, under a lock (not through the
/// actor, whose task hops could reorder them).
final class MonitorCore: Sendable {
    /// One event on its way to the app, with the receipt of an event locationd kept for it.
    struct Delivery: Sendable {
        let event: CLMonitor.Event
        var receipt: PendingReceipt?
    }

    private struct State: Sendable {
        var records: [String: CLMonitor.Record] = [:]
        /// The authorization flags of the last events, to report each change once.
        var authorizationFlags: CLMonitor.EventFlags = []
        var session: (any MonitorSession)?
    }

    let name: String
    private let runtime: any LocationRuntime
    private let continuation: AsyncStream<Delivery>.Continuation
    private let state = Mutex(State())

    init(
        name: String, runtime: any LocationRuntime, continuation: AsyncStream<Delivery>.Continuation,
        beacons: BeaconRuntime? = nil
    ) {
        self.name = name
        self.runtime = runtime
        self.continuation = continuation
        let flags = Self.authorizationFlags(
            runtime.authorization.authorization, servicesEnabled: runtime.authorization.servicesEnabled,
            requestInProgress: runtime.authorization.isRequestInProgress)
        state.withLock { $0.authorizationFlags = flags }
        let session = runtime.openMonitor(name: name, beacons: beacons) { [weak self] event in self?.handle(event) }
        state.withLock { $0.session = session }
        let now = self.now
        let current = currentFlags
        for stored in session.restored {
            let flags = stored.isUnsupported ? current.union(.conditionUnsupported) : current
            let event = CLMonitor.Event(
                identifier: stored.identifier, state: CLMonitor.Event.State(stored.state), date: stored.date ?? now,
                flags: flags)
            let record = CLMonitor.Record(condition: stored.condition.clCondition, lastEvent: event)
            state.withLock { $0.records[stored.identifier] = record }
        }
        session.start()
    }

    func close() {
        state.withLock { $0.session }?.close()
        state.withLock { $0.session = nil }
        continuation.finish()
    }

    var identifiers: [String] { state.withLock { $0.records.keys.sorted() } }

    func record(for identifier: String) -> CLMonitor.Record? { state.withLock { $0.records[identifier] } }

    private var now: Date { runtime.scheduler.wallClock(at: runtime.scheduler.now) }

    /// The flags the app's authorization puts on every event (see `CLMonitor`).
    static func authorizationFlags(
        _ authorization: ClientAuthorization, servicesEnabled: Bool, requestInProgress: Bool
    ) -> CLMonitor.EventFlags {
        if !servicesEnabled { return .authorizationDeniedGlobally }
        switch authorization.level {
        case .denied: return .authorizationDenied
        case .restricted: return .authorizationRestricted
        case .notDetermined: return requestInProgress ? .authorizationRequestInProgress : []
        case .whenInUse, .always: return authorization.accuracy == .reduced ? .accuracyLimited : []
        }
    }

    /// The flags every event carries now: the authorization's, and whether records can be kept.
    private var currentFlags: CLMonitor.EventFlags {
        let (flags, persists) = state.withLock { ($0.authorizationFlags, $0.session?.persists ?? true) }
        return persists ? flags : flags.union(.persistenceUnavailable)
    }

    /// Reports a change of the authorization's flags once, on every record, with its last state.
    private func authorizationChanged() {
        let flags = Self.authorizationFlags(
            runtime.authorization.authorization, servicesEnabled: runtime.authorization.servicesEnabled,
            requestInProgress: runtime.authorization.isRequestInProgress)
        let records: [CLMonitor.Record]? = state.withLock { state in
            guard state.authorizationFlags != flags else { return nil }
            state.authorizationFlags = flags
            return state.records.values.sorted { $0.lastEvent.identifier < $1.lastEvent.identifier }
        }
        guard let records else { return }
        for record in records where !record.lastEvent.conditionUnsupported {
            let last = record.lastEvent
            let event = CLMonitor.Event(identifier: last.identifier, state: last.state, date: now, flags: currentFlags)
            update(CLMonitor.Record(condition: record.condition, lastEvent: event), yield: true)
        }
    }

    func add(_ condition: any CLCondition, identifier: String, assuming assumed: CLMonitor.Event.State) {
        remove(identifier)
        guard let watched = MonitorCondition(condition), let session = state.withLock({ $0.session }) else {
            let event = CLMonitor.Event(
                identifier: identifier, state: .unmonitored, date: now,
                flags: currentFlags.union(.conditionUnsupported))
            update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
            return
        }
        // The record is in place before the runtime watches: an engine in process may decide at once.
        let event = CLMonitor.Event(identifier: identifier, state: assumed, date: now, flags: currentFlags)
        update(CLMonitor.Record(condition: condition, lastEvent: event), yield: false)
        guard let failure = session.add(watched, identifier: identifier, state: MonitorState(assumed), date: event.date)
        else { return }
        let refused = CLMonitor.Event(
            identifier: identifier, state: .unmonitored, date: now,
            flags: currentFlags.union(failure == .denied ? .authorizationDenied : .conditionUnsupported))
        update(CLMonitor.Record(condition: condition, lastEvent: refused), yield: true)
    }

    func remove(_ identifier: String) {
        guard let removed = state.withLock({ $0.records.removeValue(forKey: identifier) }) else { return }
        let condition = MonitorCondition(removed.condition) ?? .circle(latitude: .nan, longitude: .nan, radius: .nan)
        state.withLock { $0.session }?.remove(identifier, condition: condition)
    }

    // MARK: Events from the runtime

    private func handle(_ event: MonitorEvent) {
        switch event {
        case .authorization:
            authorizationChanged()
        case let .failed(identifier, failure):
            var flags = currentFlags
            switch failure {
            case .denied:
                // The authorization's flags say why (globally off, denied, restricted, reduced accuracy).
                if flags.isDisjoint(with: [.authorizationDeniedGlobally, .authorizationDenied, .authorizationRestricted,
                                           .accuracyLimited]) {
                    flags.insert(.authorizationDenied)
                }
            case .tooManyConditions: flags.insert(.conditionLimitExceeded)
            case .unsupported: flags.insert(.conditionUnsupported)
            }
            guard let condition = record(for: identifier)?.condition else { return }
            let event = CLMonitor.Event(identifier: identifier, state: .unmonitored, date: now, flags: flags)
            update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
        case let .changed(identifier, monitorState, date, receipt):
            let mapped = CLMonitor.Event.State(monitorState)
            guard let record = record(for: identifier) else {
                receipt?.done()
                return
            }
            // A change locationd kept is reported even when the record shows its state already (the daemon
            // keeps a condition's new state with the event, so a restored record is ahead of the events to come).
            if receipt == nil, record.lastEvent.state == mapped { return }
            let event = CLMonitor.Event(identifier: identifier, state: mapped, date: date ?? now, flags: currentFlags)
            let updated = CLMonitor.Record(condition: record.condition, lastEvent: event)
            if let receipt {
                state.withLock { $0.records[identifier] = updated }
                continuation.yield(Delivery(event: event, receipt: receipt))
            } else {
                update(updated, yield: true)
            }
        }
    }

    private func update(_ record: CLMonitor.Record, yield: Bool) {
        let session = state.withLock { state in
            state.records[record.lastEvent.identifier] = record
            return state.session
        }
        if let condition = MonitorCondition(record.condition) {
            session?.keep(
                identifier: record.lastEvent.identifier, condition: condition,
                state: MonitorState(record.lastEvent.state), date: record.lastEvent.date)
        }
        if yield { continuation.yield(Delivery(event: record.lastEvent)) }
    }
}

extension MonitorCondition {
    /// The runtime's form of a condition `CLMonitor` can watch; nil for any other.
    init?(_ condition: any CLCondition) {
        if let circle = condition as? CLMonitor.CircularGeographicCondition {
            self = .circle(latitude: circle.center.latitude, longitude: circle.center.longitude, radius: circle.radius)
        } else if let beacon = condition as? CLMonitor.BeaconIdentityCondition {
            self = .beacon(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
        } else {
            return nil
        }
    }

    var clCondition: any CLCondition {
        switch self {
        case let .circle(latitude, longitude, radius):
            CLMonitor.CircularGeographicCondition(
                center: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), radius: radius)
        case let .beacon(uuid, major, minor):
            CLMonitor.BeaconIdentityCondition(uuid: uuid, optionalMajor: major, minor: minor)
        }
    }
}

extension CLMonitor.Event.State {
    init(_ state: MonitorState) { self = CLMonitor.Event.State(rawValue: state.rawValue) ?? .unknown }
}

extension MonitorState {
    init(_ state: CLMonitor.Event.State) { self = MonitorState(rawValue: state.rawValue) ?? .unknown }
}

import CoreLocationRuntime
import Foundation
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Synchronization

/// The engine client behind one `CLMonitor`. Engine notices arrive on the runtime's draining
/// thread and are turned into events there, in order, under a lock (not through the actor, whose
/// task hops could reorder them).
final class MonitorCore: Sendable {
    /// One event on its way to the app, with the daemon's receipt when it is a stored one.
    struct Delivery: Sendable {
        let event: CLMonitor.Event
        var receipt: DaemonLink.PendingReceipt?
    }

    private struct State: Sendable {
        var records: [String: CLMonitor.Record] = [:]
        var client: ClientID?
        /// The authorization flags of the last events, to report each change once.
        var authorizationFlags: CLMonitor.EventFlags = []
        /// Watches the monitor's beacon conditions (made at the first one), on the process's scanner.
        var beaconSession: BeaconRangingSession?
        /// Through locationd: this monitor's taker of its pending events (decision 0049).
        var pendingConsumer: UInt64?
    }

    let name: String
    let group: String
    private let runtime: LocationRuntime
    private let continuation: AsyncStream<Delivery>.Continuation
    private let state = Mutex(State())
    /// Tests give their own; otherwise `BeaconRuntime.shared`, touched only by a beacon condition (it opens the
    /// system bus).
    private let beaconRuntime: BeaconRuntime?

    init(
        name: String, runtime: LocationRuntime, continuation: AsyncStream<Delivery>.Continuation,
        beacons: BeaconRuntime? = nil
    ) {
        self.name = name
        self.group = "monitor:" + name
        self.runtime = runtime
        self.continuation = continuation
        self.beaconRuntime = beacons
        let client = runtime.addClient(label: "CLMonitor \(name)") { [weak self] event in
            switch event {
            case .region(let notice): self?.handle(notice)
            case .authorization: self?.authorizationChanged()
            default: break
            }
        }
        let flags = Self.authorizationFlags(
            runtime.authorization.authorization, servicesEnabled: runtime.authorization.servicesEnabled,
            requestInProgress: runtime.authorization.isRequestInProgress)
        state.withLock {
            $0.client = client
            $0.authorizationFlags = flags
        }
        if let link = runtime.link {
            restore(from: link)
        } else {
            restore()
        }
    }

    func close() {
        if let client = state.withLock({ $0.client }) { runtime.send(.unregister, from: client) }
        if let consumer = state.withLock({ $0.pendingConsumer }) { runtime.link?.removePendingConsumer(consumer) }
        state.withLock { $0.beaconSession = nil }
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
        var flags = state.withLock { $0.authorizationFlags }
        // Through locationd the daemon keeps the conditions and their states (decision 0049).
        if runtime.regionStore == nil && runtime.link == nil { flags.insert(.persistenceUnavailable) }
        return flags
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
        if let beacon = condition as? CLMonitor.BeaconIdentityCondition, let link = runtime.link {
            return add(beacon, identifier: identifier, assuming: assumed, through: link)
        }
        if let beacon = condition as? CLMonitor.BeaconIdentityCondition, let session = beaconSession() {
            let event = CLMonitor.Event(identifier: identifier, state: assumed, date: now, flags: currentFlags)
            update(CLMonitor.Record(condition: condition, lastEvent: event), yield: false)
            session.startMonitoring(identifier: identifier, constraint: BeaconConstraint(beacon))
            return
        }
        guard let circle = condition as? CLMonitor.CircularGeographicCondition else {
            let event = CLMonitor.Event(
                identifier: identifier, state: .unmonitored, date: now,
                flags: currentFlags.union(.conditionUnsupported))
            update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
            return
        }
        let event = CLMonitor.Event(identifier: identifier, state: assumed, date: now, flags: currentFlags)
        update(CLMonitor.Record(condition: condition, lastEvent: event), yield: false)
        send(.startMonitoring(region(circle, identifier: identifier)))
    }

    func remove(_ identifier: String) {
        guard let removed = state.withLock({ $0.records.removeValue(forKey: identifier) }) else { return }
        if removed.condition is CLMonitor.BeaconIdentityCondition {
            if let link = runtime.link {
                link.stopMonitoringBeaconRegion(identifier, monitor: name)
            } else {
                state.withLock { $0.beaconSession }?.stopMonitoring(identifier: identifier)
            }
        } else {
            send(.stopMonitoring(identifier: identifier, group: group))
        }
        do {
            try runtime.regionStore?.removeRecord(
                identifier: identifier, monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error("Cannot forget a monitor record", metadata: ["error": "\(error)"])
        }
    }

    private func region(_ circle: CLMonitor.CircularGeographicCondition, identifier: String) -> MonitoredRegion {
        MonitoredRegion(
            identifier: identifier, latitude: circle.center.latitude, longitude: circle.center.longitude,
            radius: circle.radius, group: group
        )
    }

    private func send(_ command: ClientCommand) {
        guard let client = state.withLock({ $0.client }) else { return }
        runtime.send(command, from: client)
    }

    // MARK: Beacon conditions (docs/decisions/0030)

    /// The monitor's beacon session, made at first use; nil when the process has no scanner
    /// (`CORELOCATION_BEACONS=off`, no system bus): then beacon conditions stay `conditionUnsupported`.
    private func beaconSession() -> BeaconRangingSession? {
        let runtime = beaconRuntime ?? BeaconRuntime.shared
        guard let scanner = runtime.scanner else { return nil }
        return state.withLock { state in
            if let session = state.beaconSession { return session }
            let session = BeaconRangingSession(scanner: scanner, scheduler: runtime.scheduler) { [weak self] output in
                self?.handleBeacon(output)
            }
            state.beaconSession = session
            return session
        }
    }

    /// A beacon region's state becomes the condition's: inside → satisfied (at the first matching advert),
    /// outside → unsatisfied (after the 30 s silence). Like locations, only while the app is authorized; a radio
    /// that goes away leaves the last state (the silence timer still runs).
    private func handleBeacon(_ output: BeaconRangingSession.Output) {
        guard case .action(.determined(let identifier, let regionState)) = output else { return }
        let flags = currentFlags
        guard flags.isDisjoint(with: [.authorizationDeniedGlobally, .authorizationDenied, .authorizationRestricted]),
            runtime.authorization.authorization.allowsLocation
        else { return }
        let mapped: CLMonitor.Event.State =
            regionState == .inside ? .satisfied : regionState == .outside ? .unsatisfied : .unknown
        guard let record = record(for: identifier), record.lastEvent.state != mapped else { return }
        let event = CLMonitor.Event(identifier: identifier, state: mapped, date: now, flags: flags)
        update(CLMonitor.Record(condition: record.condition, lastEvent: event), yield: true)
    }

    private func handle(_ notice: RegionNotice) {
        let event: CLMonitor.Event
        switch notice {
        case .failed(let region, let failure) where region.group == group:
            var flags = currentFlags
            switch failure {
            case .denied:
                // The authorization's flags say why (globally off, denied, restricted, reduced accuracy).
                if flags.isDisjoint(with: [.authorizationDeniedGlobally, .authorizationDenied, .authorizationRestricted,
                                           .accuracyLimited]) {
                    flags.insert(.authorizationDenied)
                }
            case .tooManyRegions: flags.insert(.conditionLimitExceeded)
            default: flags.insert(.conditionUnsupported)
            }
            event = CLMonitor.Event(identifier: region.identifier, state: .unmonitored, date: now, flags: flags)
        case .determined(let region, let regionState, let fix) where region.group == group && fix != nil:
            let mapped = Self.state(regionState)
            guard record(for: region.identifier)?.lastEvent.state != mapped else { return }
            event = CLMonitor.Event(
                identifier: region.identifier, state: mapped, date: fix?.timestamp ?? now, flags: currentFlags)
        default:
            return
        }
        guard let condition = record(for: event.identifier)?.condition else { return }
        update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
    }

    private func update(_ record: CLMonitor.Record, yield: Bool) {
        state.withLock { $0.records[record.lastEvent.identifier] = record }
        persist(record)
        if yield { continuation.yield(Delivery(event: record.lastEvent)) }
    }

    // MARK: Persistence

    private struct StoredCondition: Codable {
        var circular: CLMonitor.CircularGeographicCondition?
        var beacon: CLMonitor.BeaconIdentityCondition?
    }

    private func persist(_ record: CLMonitor.Record) {
        guard let store = runtime.regionStore else { return }
        do {
            let stored = StoredCondition(
                circular: record.condition as? CLMonitor.CircularGeographicCondition,
                beacon: record.condition as? CLMonitor.BeaconIdentityCondition
            )
            let row = MonitorRecordRow(
                identifier: record.lastEvent.identifier, condition: try JSONEncoder().encode(stored),
                state: Int(record.lastEvent.state.rawValue), date: record.lastEvent.date
            )
            try store.save(row, monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error("Cannot persist a monitor record", metadata: ["error": "\(error)"])
        }
    }

    private func restore() {
        guard let store = runtime.regionStore else { return }
        let rows: [MonitorRecordRow]
        do {
            rows = try store.records(monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error(
                "Cannot read the records of a monitor", metadata: ["monitor": "\(name)", "error": "\(error)"])
            return
        }
        var regions: [StoredRegion] = []
        var beacons: [(String, CLMonitor.BeaconIdentityCondition)] = []
        for row in rows {
            guard let stored = try? JSONDecoder().decode(StoredCondition.self, from: row.condition),
                let condition: any CLCondition = stored.circular ?? stored.beacon,
                let monitoringState = CLMonitor.Event.State(rawValue: UInt(row.state))
            else {
                runtime.logger.warning("Skipping an unreadable monitor record", metadata: ["monitor": "\(name)"])
                continue
            }
            let watched = stored.circular != nil || (stored.beacon != nil && beaconSession() != nil)
            let flags: CLMonitor.EventFlags = watched ? currentFlags : currentFlags.union(.conditionUnsupported)
            let event = CLMonitor.Event(
                identifier: row.identifier, state: monitoringState, date: row.date, flags: flags)
            state.withLock { $0.records[row.identifier] = CLMonitor.Record(condition: condition, lastEvent: event) }
            if let circle = stored.circular {
                let known: RegionState =
                    monitoringState == .satisfied ? .inside : monitoringState == .unsatisfied ? .outside : .unknown
                regions.append(StoredRegion(region: region(circle, identifier: row.identifier), state: known))
            } else if let beacon = stored.beacon, watched {
                beacons.append((row.identifier, beacon))
            }
        }
        if !regions.isEmpty { runtime.input(.restoreRegions(regions)) }
        for (identifier, beacon) in beacons {
            beaconSession()?.startMonitoring(identifier: identifier, constraint: BeaconConstraint(beacon))
        }
    }
}

// MARK: Through locationd (decision 0049)

extension MonitorCore {
    /// The monitor's circular conditions and their states as the daemon keeps them (across the
    /// app's launches), then its pending events: the changes the daemon stored while no process
    /// of the app ran, handed in order once the monitor exists again, as Apple delivers a
    /// relaunched app's events when it makes the monitor with the same name.
    fileprivate func restore(from link: DaemonLink) {
        let flags = currentFlags
        for stored in link.monitorConditions(name: name) {
            let circle = CLMonitor.CircularGeographicCondition(
                center: CLLocationCoordinate2D(latitude: stored.region.latitude, longitude: stored.region.longitude),
                radius: stored.region.radius)
            let event = CLMonitor.Event(
                identifier: stored.region.identifier, state: Self.state(stored.state), date: now, flags: flags)
            state.withLock { $0.records[stored.region.identifier] = CLMonitor.Record(condition: circle, lastEvent: event) }
        }
        for stored in link.monitorBeaconConditions(name: name) {
            let identifier = stored.condition.identifier
            let event = CLMonitor.Event(
                identifier: identifier, state: Self.state(beacon: stored.state), date: now, flags: flags)
            state.withLock {
                $0.records[identifier] = CLMonitor.Record(
                    condition: CLMonitor.BeaconIdentityCondition(stored.condition), lastEvent: event)
            }
        }
        // A monitor closed before it took an event leaves it with the daemon, for the next
        // monitor of that name (in a later process).
        let consumer = link.addPendingConsumer(channel: .monitor(name)) { [weak self] payload, receipt in
            guard let self else { return }
            switch payload {
            case let .region(notice) where self.handlePending(notice, receipt): return
            case let .beaconCondition(condition, state) where self.handlePending(condition, state, receipt): return
            default: receipt.done()
            }
        }
        state.withLock { $0.pendingConsumer = consumer }
    }

    /// A change the daemon stored: reported even when the record already shows its state (the
    /// daemon stores a condition's new state with the event, so a restored record is ahead of
    /// the events still to come). False when the notice is not this monitor's to report.
    private func handlePending(_ notice: RegionNotice, _ receipt: DaemonLink.PendingReceipt) -> Bool {
        guard case let .determined(region, regionState, fix) = notice, region.group == group,
            let condition = record(for: region.identifier)?.condition
        else { return false }
        let event = CLMonitor.Event(
            identifier: region.identifier, state: Self.state(regionState), date: fix?.timestamp ?? now,
            flags: currentFlags)
        state.withLock { $0.records[region.identifier] = CLMonitor.Record(condition: condition, lastEvent: event) }
        continuation.yield(Delivery(event: event, receipt: receipt))
        return true
    }

    /// A beacon condition's change the daemon stored (decision 0053), reported as a circular
    /// condition's is.
    private func handlePending(
        _ condition: BeaconRegionSpec, _ regionState: BeaconRegionState, _ receipt: DaemonLink.PendingReceipt
    ) -> Bool {
        guard condition.monitor == name, let record = record(for: condition.identifier) else { return false }
        let event = CLMonitor.Event(
            identifier: condition.identifier, state: Self.state(beacon: regionState.rawValue), date: now,
            flags: currentFlags)
        state.withLock { $0.records[condition.identifier] = CLMonitor.Record(condition: record.condition, lastEvent: event) }
        continuation.yield(Delivery(event: event, receipt: receipt))
        return true
    }

    /// A beacon condition through locationd: the daemon watches it with its own scanner, for the
    /// app running or not, and keeps it by the monitor's name (decision 0053). Refused: the record
    /// says why (denied, or no scanner: unsupported), as a circular condition's failure does.
    fileprivate func add(
        _ beacon: CLMonitor.BeaconIdentityCondition, identifier: String, assuming assumed: CLMonitor.Event.State,
        through link: DaemonLink
    ) {
        let spec = BeaconRegionSpec(
            identifier: identifier, uuid: beacon.uuid, major: beacon.major, minor: beacon.minor, monitor: name)
        guard let failure = link.monitorBeaconRegion(spec) else {
            let event = CLMonitor.Event(identifier: identifier, state: assumed, date: now, flags: currentFlags)
            return update(CLMonitor.Record(condition: beacon, lastEvent: event), yield: false)
        }
        let flags = currentFlags.union(failure.code == .notPermitted ? .authorizationDenied : .conditionUnsupported)
        let event = CLMonitor.Event(identifier: identifier, state: .unmonitored, date: now, flags: flags)
        update(CLMonitor.Record(condition: beacon, lastEvent: event), yield: true)
    }

    static func state(_ regionState: RegionState) -> CLMonitor.Event.State {
        regionState == .inside ? .satisfied : regionState == .outside ? .unsatisfied : .unknown
    }

    /// A beacon region's state (`CLRegionState`'s raw value) as a condition's.
    static func state(beacon raw: Int) -> CLMonitor.Event.State {
        raw == BeaconRegionState.inside.rawValue
            ? .satisfied : raw == BeaconRegionState.outside.rawValue ? .unsatisfied : .unknown
    }
}

extension CLMonitor.BeaconIdentityCondition {
    init(_ spec: BeaconRegionSpec) {
        self.init(uuid: spec.uuid, optionalMajor: spec.major, minor: spec.minor)
    }
}

extension BeaconConstraint {
    init(_ condition: CLMonitor.BeaconIdentityCondition) {
        self.init(uuid: condition.uuid, major: condition.major, minor: condition.minor)
    }
}

import CoreLocationRuntime
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import Foundation
import Synchronization

/// Beacon ranging (issue 13; docs/decisions/0029, 0030): each manager has one `BeaconRangingSession` on the
/// process's shared scanner (`BeaconRuntime`), created at first use. Beacon regions are the app's, not a
/// manager's: `BeaconRegionMonitor` in the process, locationd through it (decisions 0050, 0052).
final class BeaconClient: Sendable {
    enum Origin: Hashable, Sendable {
        case constraint(CLBeaconIdentityConstraint)
        case region(CLBeaconRegion)
    }

    private struct State {
        var runtime: BeaconRuntime?
        var session: BeaconRangingSession?
        var ranging: [BeaconConstraint: [Origin]] = [:]
    }

    private let state = Mutex(State())

    /// The runtime this manager's beacons use (`BeaconRuntime.shared` unless a test gave another).
    var runtime: BeaconRuntime { state.withLock { $0.runtime } ?? BeaconRuntime.shared }

    /// Tests: use `runtime` instead of the process's (before the first beacon call).
    func use(_ runtime: BeaconRuntime) { state.withLock { $0.runtime = runtime } }

    func session(for manager: CLLocationManager) -> BeaconRangingSession? {
        let runtime = self.runtime
        guard let scanner = runtime.scanner else { return nil }
        return state.withLock { state in
            if let session = state.session { return session }
            let session = BeaconRangingSession(scanner: scanner, scheduler: runtime.scheduler) {
                [weak manager] output in
                manager?.deliverBeaconOutput(output)
            }
            state.session = session
            return session
        }
    }

    /// Adds an origin; true when the constraint is new to the session.
    func add(_ origin: Origin, for constraint: BeaconConstraint) -> Bool {
        state.withLock { state in
            let isNew = state.ranging[constraint] == nil
            if !(state.ranging[constraint] ?? []).contains(origin) {
                state.ranging[constraint, default: []].append(origin)
            }
            return isNew
        }
    }

    /// Removes an origin; true when the constraint has no origin left.
    func remove(_ origin: Origin, for constraint: BeaconConstraint) -> Bool {
        state.withLock { state in
            guard var origins = state.ranging[constraint] else { return false }
            origins.removeAll { $0 == origin }
            state.ranging[constraint] = origins.isEmpty ? nil : origins
            return origins.isEmpty
        }
    }

    func origins(for constraint: BeaconConstraint) -> [Origin] { state.withLock { $0.ranging[constraint] ?? [] } }
    var allOrigins: [Origin] { state.withLock { $0.ranging.values.flatMap { $0 } } }
}

extension BeaconConstraint {
    init(_ constraint: CLBeaconIdentityConstraint) {
        self.init(uuid: constraint.uuid, major: constraint.major, minor: constraint.minor)
    }
}

extension CLLocationManager {
    static func beaconRangingAvailable() -> Bool { BeaconRuntime.shared.isAvailable }

    func beaconStartRanging(_ origin: BeaconClient.Origin) {
        let constraint: BeaconConstraint
        switch origin {
        case .constraint(let value): constraint = BeaconConstraint(value)
        case .region(let region): constraint = BeaconConstraint(region.beaconIdentityConstraint)
        }
        guard CLLocationManager.locationServicesEnabled(), let session = beacons.session(for: self) else {
            deliverRangingFailure(origin, CLError(.rangingUnavailable))
            return
        }
        guard !beaconsDecidedAgainst else {
            deliverRangingFailure(origin, CLError(.denied))
            return
        }
        if beacons.add(origin, for: constraint) { session.startRanging(constraint) }
    }

    func beaconStopRanging(_ origin: BeaconClient.Origin) {
        let constraint: BeaconConstraint
        switch origin {
        case .constraint(let value): constraint = BeaconConstraint(value)
        case .region(let region): constraint = BeaconConstraint(region.beaconIdentityConstraint)
        }
        if beacons.remove(origin, for: constraint) { beacons.session(for: self)?.stopRanging(constraint) }
    }

    var beaconRangedConstraints: Set<CLBeaconIdentityConstraint> {
        Set(beacons.allOrigins.compactMap { if case .constraint(let value) = $0 { value } else { nil } })
    }

    var beaconRangedRegions: Set<CLRegion> {
        Set(beacons.allOrigins.compactMap { if case .region(let value) = $0 { value as CLRegion } else { nil } })
    }

    func beaconStartMonitoring(_ region: CLBeaconRegion) {
        if let link = runtime.link { return beaconStartMonitoring(region, through: link) }
        guard !beaconsDecidedAgainst, let monitor = runtime.beaconRegions(creating: true) else {
            let code: CLError.Code = beaconsDecidedAgainst ? .regionMonitoringDenied : .regionMonitoringFailure
            callDelegate { manager, delegate in
                delegate.locationManager(manager, monitoringDidFailFor: region, withError: CLError(code))
            }
            return
        }
        let copy = region.copy() as? CLBeaconRegion ?? region
        monitor.start(BeaconRegionSpec(copy))
        callDelegate { manager, delegate in delegate.locationManager(manager, didStartMonitoringFor: copy) }
    }

    /// True when `region` is a beacon region (then it is stopped here): through locationd by the
    /// region's class, without asking the daemon first (an unknown identifier is ignored there);
    /// in the process when it is one of the app's.
    func beaconStopMonitoring(_ region: CLRegion) -> Bool {
        let identifier = region.identifier
        if let link = runtime.link {
            guard region is CLBeaconRegion else { return false }
            link.stopMonitoringBeaconRegion(identifier)
            return true
        }
        return runtime.beaconRegions(creating: false)?.stop(identifier) ?? false
    }

    /// True when `region` is one of the app's beacon regions: its state is then told to this manager's
    /// delegate alone (the asking manager, as a circular region's answer). Through locationd, the daemon's
    /// session answers; a region it does not monitor fails as `regionMonitoringFailure`.
    func beaconRequestState(_ region: CLRegion) -> Bool {
        if let link = runtime.link {
            guard let beaconRegion = region as? CLBeaconRegion else { return false }
            switch link.beaconRegionState(region.identifier) {
            case let .success(raw):
                let state = CLRegionState(BeaconRegionState(rawValue: raw) ?? .unknown)
                callDelegate { manager, delegate in
                    guard manager.beaconsAuthorized else { return }
                    delegate.locationManager(manager, didDetermineState: state, for: beaconRegion)
                }
            case let .failure(failure):
                let error = CLError(monitoringRefused: failure)
                callDelegate { manager, delegate in
                    delegate.locationManager(manager, monitoringDidFailFor: beaconRegion, withError: error)
                }
            }
            return true
        }
        guard let (spec, state) = runtime.beaconRegions(creating: false)?.state(of: region.identifier) else {
            return false
        }
        let clState = CLRegionState(state)
        callDelegate { manager, delegate in
            guard manager.beaconsAuthorized else { return }
            delegate.locationManager(manager, didDetermineState: clState, for: CLBeaconRegion(spec))
        }
        return true
    }

    var beaconMonitoredRegions: Set<CLRegion> {
        let regions = runtime.link?.beaconRegions() ?? runtime.beaconRegions(creating: false)?.monitored ?? []
        return Set(regions.map { CLBeaconRegion($0) as CLRegion })
    }

    /// An event of one of the app's beacon regions (in the process), for an authorized app only.
    func deliverBeaconRegionNotice(_ notice: BeaconRegionMonitor.Notice) {
        callDelegate { manager, delegate in
            guard manager.beaconsAuthorized else { return }
            switch notice {
            case let .determined(spec, state):
                delegate.locationManager(manager, didDetermineState: CLRegionState(state), for: CLBeaconRegion(spec))
            case let .entered(spec) where spec.notifyOnEntry:
                delegate.locationManager(manager, didEnterRegion: CLBeaconRegion(spec))
            case let .exited(spec) where spec.notifyOnExit:
                delegate.locationManager(manager, didExitRegion: CLBeaconRegion(spec))
            case .entered, .exited: break
            }
        }
    }

    // MARK: Through locationd (decision 0050)

    /// The daemon watches the region for the app, running or not; its entries and exits come as
    /// pending events to the delegate (`startReceivingPending`), and relaunch the app when it is gone.
    private func beaconStartMonitoring(_ region: CLBeaconRegion, through link: DaemonLink) {
        let copy = region.copy() as? CLBeaconRegion ?? region
        if let failure = link.monitorBeaconRegion(BeaconRegionSpec(copy)) {
            let error = CLError(monitoringRefused: failure)
            callDelegate { manager, delegate in
                delegate.locationManager(manager, monitoringDidFailFor: region, withError: error)
            }
            return
        }
        callDelegate { manager, delegate in delegate.locationManager(manager, didStartMonitoringFor: copy) }
    }

    // MARK: Authorization

    /// Denied or restricted: ranging fails with `kCLErrorDenied` and beacon regions with
    /// `kCLErrorRegionMonitoringDenied`, as location updates and circular regions do.
    private var beaconsDecidedAgainst: Bool {
        let status = authorizationStatus
        return status == .denied || status == .restricted || !CLLocationManager.locationServicesEnabled()
    }

    /// Beacons say where the user is, so they reach the delegate only while the app is authorized (when in use
    /// or always), like locations: before the user decides the session runs but nothing is delivered, and a
    /// revoked decision stops delivery at once (docs/decisions/0030).
    private var beaconsAuthorized: Bool { runtime.allowsBeaconDelivery }

    // MARK: Delivery (from the session's threads to the delegate's)

    func deliverBeaconOutput(_ output: BeaconRangingSession.Output) {
        let runtime = beacons.runtime
        if case .action = output, !beaconsAuthorized { return }
        switch output {
        case .action(.ranged(let constraint, let ranged)):
            let list = ranged.map { beacon in
                CLBeacon(
                    uuid: beacon.uuid, major: beacon.major, minor: beacon.minor,
                    proximity: CLProximity(rawValue: beacon.proximity.rawValue) ?? .unknown,
                    accuracy: beacon.accuracy, rssi: beacon.rssi,
                    timestamp: runtime.scheduler.wallClock(at: beacon.lastSeen))
            }
            for origin in beacons.origins(for: constraint) {
                callDelegate { manager, delegate in
                    switch origin {
                    case .constraint(let value): delegate.locationManager(manager, didRange: list, satisfying: value)
                    case .region(let region): delegate.locationManager(manager, didRangeBeacons: list, in: region)
                    }
                }
            }
        case .action(.determined), .action(.entered), .action(.exited):
            break  // the manager's session only ranges; regions are the app's (BeaconRegionMonitor)
        case .availabilityChanged(let available):
            guard !available else { return }
            for origin in beacons.allOrigins { deliverRangingFailure(origin, CLError(.rangingUnavailable)) }
        }
    }

    private func deliverRangingFailure(_ origin: BeaconClient.Origin, _ error: CLError) {
        callDelegate { manager, delegate in
            switch origin {
            case .constraint(let value): delegate.locationManager(manager, didFailRangingFor: value, error: error)
            case .region(let region):
                delegate.locationManager(manager, rangingBeaconsDidFailFor: region, withError: error)
            }
        }
    }
}

extension BeaconRegionSpec {
    init(_ region: CLBeaconRegion) {
        let constraint = region.beaconIdentityConstraint
        self.init(
            identifier: region.identifier, uuid: constraint.uuid, major: constraint.major, minor: constraint.minor,
            notifyOnEntry: region.notifyOnEntry, notifyOnExit: region.notifyOnExit)
    }
}

extension CLBeaconRegion {
    convenience init(_ spec: BeaconRegionSpec) {
        self.init(beaconIdentityConstraint: spec.identityConstraint, identifier: spec.identifier)
        notifyOnEntry = spec.notifyOnEntry
        notifyOnExit = spec.notifyOnExit
    }
}

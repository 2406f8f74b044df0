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

    /// The runtime this manager's beacons use: its location runtime's unless a test gave another.
    func runtime(default fallback: BeaconRuntime) -> BeaconRuntime { state.withLock { $0.runtime } ?? fallback }

    /// Tests: use `runtime` instead of the process's (before the first beacon call).
    func use(_ runtime: BeaconRuntime) { state.withLock { $0.runtime = runtime } }

    func session(for manager: CLLocationManager) -> BeaconRangingSession? {
        let runtime = runtime(default: manager.runtime.beacons)
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

    /// The app's region, watched where its runtime watches beacon regions: in this process (decision 0052) or
    /// by locationd, for the app running or not (decision 0050; its entries and exits then come as kept events
    /// to the delegate, `startReceivingPending`).
    func beaconStartMonitoring(_ region: CLBeaconRegion) {
        let copy = region.copy() as? CLBeaconRegion ?? region
        if let refusal = runtime.startMonitoring(BeaconRegionSpec(copy)) {
            let error = CLError(refusal)
            callDelegate { manager, delegate in
                delegate.locationManager(manager, monitoringDidFailFor: region, withError: error)
            }
            return
        }
        callDelegate { manager, delegate in delegate.locationManager(manager, didStartMonitoringFor: copy) }
    }

    /// True when `region` is one of the app's beacon regions (then it is stopped here).
    func beaconStopMonitoring(_ region: CLRegion) -> Bool {
        runtime.stopMonitoringBeaconRegion(region.identifier, isBeaconRegion: region is CLBeaconRegion)
    }

    /// True when `region` is one of the app's beacon regions: its state is then told to this manager's
    /// delegate alone (the asking manager, as a circular region's answer); a region the runtime refuses to
    /// answer for fails as `regionMonitoringFailure` (denied: `regionMonitoringDenied`).
    func beaconRequestState(_ region: CLRegion) -> Bool {
        switch runtime.beaconRegionState(region.identifier, isBeaconRegion: region is CLBeaconRegion) {
        case nil:
            return false
        case let .state(spec, state)?:
            let clState = CLRegionState(state)
            let asked = spec.map(CLBeaconRegion.init) ?? region
            callDelegate { manager, delegate in
                guard manager.beaconsAuthorized else { return }
                delegate.locationManager(manager, didDetermineState: clState, for: asked)
            }
        case let .refused(refusal)?:
            let error = CLError(refusal)
            callDelegate { manager, delegate in
                delegate.locationManager(manager, monitoringDidFailFor: region, withError: error)
            }
        }
        return true
    }

    var beaconMonitoredRegions: Set<CLRegion> {
        Set(runtime.monitoredBeaconRegions.map { CLBeaconRegion($0) as CLRegion })
    }

    /// An event of one of the app's beacon regions (in the process), for an authorized app only.
    func deliverBeaconRegionNotice(_ notice: BeaconRegionNotice) {
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

    // MARK: Authorization

    /// Denied or restricted: ranging fails with `kCLErrorDenied`, as location updates do.
    private var beaconsDecidedAgainst: Bool {
        let status = authorizationStatus
        return status == .denied || status == .restricted || !CLLocationManager.locationServicesEnabled()
    }

    /// Beacons say where the user is, so they reach the delegate only while the app is authorized (when in use
    /// or always), like locations: before the user decides the session runs but nothing is delivered, and a
    /// revoked decision stops delivery at once (docs/decisions/0030).
    private var beaconsAuthorized: Bool { runtime.authorization.authorization.allowsLocation && runtime.servicesEnabled }

    // MARK: Delivery (from the session's threads to the delegate's)

    func deliverBeaconOutput(_ output: BeaconRangingSession.Output) {
        let runtime = beacons.runtime(default: self.runtime.beacons)
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

import CoreLocationRuntime
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import Foundation

/// Beacon regions through locationd (decision 0050): the daemon watches an app's beacon regions
/// with its own scanner, while a process of the app runs and while none does. An entry or exit is
/// a pending event (`beacon-enter`, `beacon-exit`) sent to the app's delegate as region crossings
/// are, and the reason to relaunch the app when it is not running. A `CLMonitor`'s
/// `BeaconIdentityCondition` is one too (its spec names the monitor; decision 0053): its changes
/// are pending events for that monitor, as a circular condition's (0049).
extension DaemonCore {
    /// `startMonitoring(for: CLBeaconRegion)` from a process of the app.
    func monitorBeaconRegion(_ region: BeaconRegionSpec, peer: Peer, app: App) -> DaemonReply {
        // Not yet decided is fine (the request may still be on its way); events wait for a yes.
        guard !effectiveAuthorization(app).isDecidedAgainst else {
            return .failure(DaemonError(.notPermitted, "the app may not monitor regions"))
        }
        guard let session = beaconSession(of: app) else {
            return .failure(DaemonError(.unavailable, "locationd has no beacon scanner"))
        }
        guard let backgroundStore else { return .failure(DaemonError(.storage, "locationd has no database")) }
        recordLaunchTarget(of: peer, app: app)
        do {
            try backgroundStore.save(region, uid: app.key.uid, appID: app.key.appID)
        } catch {
            return .failure(DaemonError(.storage, "cannot store the beacon region: \(error)"))
        }
        app.beaconRegions.withLock { $0[region.key] = region }
        session.startMonitoring(identifier: region.key, constraint: region.constraint)
        return .ok
    }

    /// Stops a region or condition by its key (`BeaconRegionSpec.key`).
    func stopMonitoringBeaconRegion(_ key: String, app: App) -> DaemonReply {
        do {
            try backgroundStore?.removeBeaconRegion(uid: app.key.uid, appID: app.key.appID, identifier: key)
        } catch {
            return .failure(DaemonError(.storage, "cannot forget the beacon region: \(error)"))
        }
        let known = app.beaconRegions.withLock { $0.removeValue(forKey: key) != nil }
        if known { app.beaconSession.withLock { $0 }?.stopMonitoring(identifier: key) }
        return .ok
    }

    /// The app's beacon regions (not its monitors' conditions).
    func beaconRegions(of app: App) -> DaemonReply {
        .beaconRegions(
            app.beaconRegions.withLock { $0.values.filter { $0.monitor == nil }.sorted { $0.identifier < $1.identifier } })
    }

    /// The beacon conditions of the app's monitor `name`, each in the state the session holds (the
    /// stored one after a restart).
    func beaconConditions(of name: String, app: App) -> DaemonReply {
        let conditions = app.beaconRegions.withLock { $0.values.filter { $0.monitor == name } }
        let session = app.beaconSession.withLock { $0 }
        return .beaconConditions(
            conditions.sorted { $0.identifier < $1.identifier }.map { condition in
                BeaconConditionState(
                    condition: condition, state: session?.regionState(identifier: condition.key)?.rawValue ?? 0)
            })
    }

    /// `requestState(for:)`: the state the daemon's session holds now (an app decided against
    /// hears nothing of where it is).
    func beaconRegionState(_ identifier: String, app: App) -> DaemonReply {
        guard !effectiveAuthorization(app).isDecidedAgainst else {
            return .failure(DaemonError(.notPermitted, "the app may not monitor regions"))
        }
        guard let region = app.beaconRegions.withLock({ $0[identifier] }), region.monitor == nil,
            let state = app.beaconSession.withLock({ $0 })?.regionState(identifier: identifier)
        else { return .failure(DaemonError(.invalidArgument, "no beacon region \(identifier) is monitored")) }
        return .beaconRegionState(state.rawValue)
    }

    /// The app's regions kept across daemon restarts, watched again (the app need not run).
    func restoreBeaconRegions(_ app: App) {
        let regions: [(BeaconRegionSpec, BeaconRegionState)]
        do { regions = try backgroundStore?.beaconRegionSpecs(uid: app.key.uid, appID: app.key.appID) ?? [] } catch {
            logger.error("Cannot read the beacon regions", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        guard !regions.isEmpty, let session = beaconSession(of: app) else { return }
        // In the state the app was last told: a restart neither repeats an entry nor invents one.
        for (region, state) in regions {
            app.beaconRegions.withLock { $0[region.key] = region }
            session.startMonitoring(identifier: region.key, constraint: region.constraint, state: state)
        }
    }

    /// The app's session on the daemon's scanner, made at its first region; nil without a scanner.
    private func beaconSession(of app: App) -> BeaconRangingSession? {
        let runtime = beaconScanner.withLock { runtime in
            if runtime == nil { runtime = BeaconRuntime(environment: ProcessInfo.processInfo.environment) }
            return runtime
        }
        guard let runtime, let scanner = runtime.scanner else { return nil }
        return app.beaconSession.withLock { session in
            if let session { return session }
            let made = BeaconRangingSession(scanner: scanner, scheduler: runtime.scheduler) {
                [weak self, weak app] output in
                guard let self, let app, case let .action(action) = output else { return }
                self.beaconAction(action, app: app)
            }
            session = made
            return made
        }
    }

    /// An entry or exit the app asked to hear, or a monitor's condition's change: stored as a
    /// pending event, for an authorized app only (a beacon says where the user is).
    private func beaconAction(_ action: BeaconRangerAction, app: App) {
        let (entered, key): (Bool, String)
        switch action {
        case let .entered(id): (entered, key) = (true, id)
        case let .exited(id): (entered, key) = (false, id)
        case let .determined(id, state): return beaconConditionChanged(id, to: state, app: app)
        default: return
        }
        guard let region = app.beaconRegions.withLock({ $0[key] }), region.monitor == nil,
            entered ? region.notifyOnEntry : region.notifyOnExit, effectiveAuthorization(app).allowsLocation
        else { return }
        do {
            // The region's new state goes in with the event (as a circular region's, decision 0039).
            pend(
                app, kind: entered ? PendingKind.beaconEnter : PendingKind.beaconExit,
                payload: try JSONEncoder().encode(region), beacon: (key, entered ? .inside : .outside))
        } catch {
            logger.error("Cannot encode a beacon region", metadata: ["app": "\(app.key)", "error": "\(error)"])
        }
    }

    /// A monitor's beacon condition became satisfied (inside) or unsatisfied (outside): a pending
    /// event for that monitor, with the condition's new state stored in the same transaction.
    private func beaconConditionChanged(_ key: String, to state: BeaconRegionState, app: App) {
        guard state != .unknown, let condition = app.beaconRegions.withLock({ $0[key] }),
            let monitor = condition.monitor, effectiveAuthorization(app).allowsLocation
        else { return }
        do {
            pend(
                app, kind: PendingKind.monitor(monitor),
                payload: try JSONEncoder().encode(BeaconConditionState(condition: condition, state: state.rawValue)),
                beacon: (key, state))
        } catch {
            logger.error("Cannot encode a beacon condition", metadata: ["app": "\(app.key)", "error": "\(error)"])
        }
    }
}

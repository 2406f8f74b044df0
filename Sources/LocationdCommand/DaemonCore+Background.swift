import CoreLocationRuntime
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Synchronization

/// Background monitoring and relaunch (issue 11, decision 0026): an app that starts region
/// monitoring gets a launch target and a daemon-owned engine client that outlives its
/// connections; its entries and exits become pending events in the database, sent to the app's
/// process once its delegate is set, forgotten once acknowledged, and the reason to start the app
/// when no process of it is connected.
extension DaemonCore {
    /// What the background side keeps in memory (the rest is in the database).
    struct BackgroundMemory {
        /// Launches since the app last took its events (for the backoff).
        var unanswered: [AppKey: Int] = [:]
        /// The last reason an app was not launched, so the history says it once.
        var refusals: [AppKey: String] = [:]
    }

    var wallClock: Double { wallNow() }

    /// The connection started a service that outlives the app: record how to start it again.
    func recordLaunchTarget(of peer: Peer, app: App) {
        // locationctl's commands are a person's, in a terminal: never started again, but for the reporter.
        guard let backgroundStore,
            peer.identity.executable != Self.siblingLocationctl || app.key.appID == AppIdentity.locationctlReporter.id,
            !peer.state.withLock({ $0.launchTargetRecorded })
        else { return }
        guard
            let target = LaunchTarget.of(
                pid: peer.identity.pid, uid: app.key.uid, appID: app.key.appID, executable: peer.identity.executable,
                now: wallClock)
        else {
            logger.warning("Cannot record how to relaunch the app", metadata: ["app": "\(app.key)"])
            return
        }
        do { try backgroundStore.register(target) } catch {
            logger.error("Cannot store the launch target", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        peer.state.withLock { $0.launchTargetRecorded = true }
        storeAuthorizationRequest(app)
        ensureBackgroundClient(app)
        wakeSweep()  // a new executable may be launchable where the old one was refused
    }

    /// The app's own engine client in the daemon: it hears every crossing, connected or not.
    ///
    /// Not made under `backgroundClient`'s lock: adding an engine client drains the engine's actions on this
    /// thread, and delivering a region notice to one of the app's connections reads `backgroundClient`
    /// (`routesThroughPending`): under the lock that was a recursive lock, and locationd crashed.
    func ensureBackgroundClient(_ app: App) {
        app.backgroundClientMaking.withLock { _ in
            guard app.backgroundClient.withLock({ $0 }) == nil else { return }
            let client = app.runtime.addClient(label: "locationd: background") { [weak self, weak app] event in
                guard let self, let app else { return }
                self.backgroundEvent(event, app: app)
            }
            app.backgroundClient.withLock { $0 = client }
        }
    }

    /// Apps with a launch target are watched from the start: their regions are monitored while
    /// none of their processes runs, across daemon restarts.
    func restoreBackgroundApps() {
        guard let backgroundStore else { return }
        let targets: [LaunchTarget]
        do { targets = try backgroundStore.targets() } catch {
            logger.error("Cannot read the launch targets", metadata: ["error": "\(error)"])
            return
        }
        for target in targets {
            let key = AppKey(uid: target.uid, appID: target.appID)
            let plist = target.uid == daemonUID ? target.environment["CORELOCATION_INFO_PLIST"] : nil
            var identity = appIdentity(
                executable: target.executable, arguments: { target.arguments }, infoPlist: plist, owner: target.uid)
            identity.id = storedID(key)
            let app = state.withLock { state -> App in
                if let app = state.apps[key] { return app }
                let app = makeApp(key: key, identity: identity)
                state.apps[key] = app
                return app
            }
            askPolicyAgain(app)
            ensureBackgroundClient(app)
            holdServices(app, restarting: true)
            restoreBeaconRegions(app)
        }
        if !targets.isEmpty { logger.info("Watching apps in the background", metadata: ["apps": "\(targets.count)"]) }
    }

    func backgroundEvent(_ event: ClientEvent, app: App) {
        guard backgroundStore != nil else { return }
        let kind: String
        let payload: Data
        var region: StoredRegion?
        do {
            switch event {
            case let .region(notice):
                guard let stored = Self.pendingRegionEvent(notice) else { return }
                (kind, region) = (stored.kind, stored.region)
                payload = try JSONEncoder().encode(notice)
            case let .delivery(delivery):
                // The background client runs only the significant-change service: every delivery
                // is a significant change.
                guard takesInBackground(app, Self.significantService) else { return }
                (kind, payload) = (PendingKind.significantChange, try JSONEncoder().encode(delivery))
            case let .visit(visit):
                guard takesInBackground(app, Self.visitsService) else { return }
                (kind, payload) = (PendingKind.visit, try JSONEncoder().encode(visit))
            default: return
            }
        } catch {
            logger.error("Cannot encode a background event", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        // A crossing's new region state goes in with the event: a daemon killed right after
        // neither repeats the crossing at its restart nor loses it (decision 0039).
        pend(app, kind: kind, payload: payload, region: region)
    }

    /// Stores a pending event for the app (with a region's new state) and sends it to its process
    /// when one takes them, else the sweep launches the app; either way it expires if nobody
    /// takes it.
    func pend(
        _ app: App, kind: String, payload: Data, region: StoredRegion? = nil,
        beacon: (identifier: String, state: BeaconRegionState)? = nil
    ) {
        let now = wallClock
        do {
            try storePending(app, kind: kind, payload: payload, region: region, beacon: beacon, now: now)
        } catch {
            logger.error("Cannot store a pending event", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        if let peer = readyPeer(of: app) {
            sendPending(of: app, to: peer)
        } else if app.peers.withLock({ $0.isEmpty }) {
            wakeSweep()  // launches the app at once when the rules allow it
            return
        }
        lowerSweep(toWall: now + relaunch.expiry)
    }

    /// `CORELOCATION_FAULT_KILL_IN_WRITE=before-commit|after-commit`: locationd SIGKILLs itself at
    /// that point of its first pending event's write, for the test of a daemon killed in the middle
    /// of a write (`BackgroundDaemonKillTests`). Unset, or any other value: nil, nothing happens.
    static func writeFault() -> (@Sendable (BackgroundStore.WritePoint) -> Void)? {
        guard let value = ProcessInfo.processInfo.environment["CORELOCATION_FAULT_KILL_IN_WRITE"],
            let point = BackgroundStore.WritePoint(rawValue: value)
        else { return nil }
        return { reached in if reached == point { kill(getpid(), SIGKILL) } }
    }

    /// Stores one pending event (with the region's new state, when given, in the same
    /// transaction) and logs it with the monotonic time the relaunch benchmark reads.
    func storePending(
        _ app: App, kind: String, payload: Data, region: StoredRegion? = nil,
        beacon: (identifier: String, state: BeaconRegionState)? = nil, now: Double
    ) throws {
        guard let backgroundStore else { return }
        let sequence = try backgroundStore.append(
            uid: app.key.uid, appID: app.key.appID, kind: kind, payload: payload, created: now,
            expires: now + relaunch.expiry, region: region.map { ($0, app.authorization.identity.id) },
            beacon: beacon.map { ($0.identifier, $0.state.rawValue) })
        logger.info(
            "Pending event",
            metadata: [
                "app": "\(app.key)", "sequence": "\(sequence)", "kind": "\(kind)",
                "uptime": "\(ProcessInfo.processInfo.systemUptime)",
            ])
    }

    /// Whether an entry or exit for the app goes through the pending events (not straight to its
    /// clients): the app has a launch target. For a `CLMonitor` condition, its changes go through
    /// them and its entries and exits (which the monitor does not use) go nowhere.
    func routesThroughPending(_ app: App, _ notice: RegionNotice) -> Bool {
        guard app.backgroundClient.withLock({ $0 }) != nil else { return false }
        switch notice {
        case .entered, .exited: return true  // a region's as pending events; a condition's nowhere
        default: return Self.pendingRegionEvent(notice) != nil
        }
    }

    /// The pending event a region notice becomes, with the region's new state: a plain region's
    /// entry or exit; a `CLMonitor` condition's change (a state decided by a fix), for the monitor
    /// of its name (decision 0049). Nil for the rest, a condition's entries and exits included.
    static func pendingRegionEvent(_ notice: RegionNotice) -> (kind: String, region: StoredRegion)? {
        switch notice {
        case let .entered(region, _) where region.group.isEmpty:
            (PendingKind.enter, StoredRegion(region: region, state: .inside))
        case let .exited(region, _) where region.group.isEmpty:
            (PendingKind.exit, StoredRegion(region: region, state: .outside))
        case let .determined(condition, state, fix) where fix != nil && isMonitorCondition(condition):
            (condition.group, StoredRegion(region: condition, state: state))
        default: nil
        }
    }

    /// A region that is a `CLMonitor` condition (its group names the monitor).
    static func isMonitorCondition(_ region: MonitoredRegion) -> Bool {
        region.group.hasPrefix(PendingKind.monitorPrefix)
    }

    func readyPeer(of app: App) -> Peer? {
        app.peers.withLock { peers in
            peers.values.filter { !$0.isClosed && $0.state.withLock { $0.receivesPending } }.min { $0.id < $1.id }
        }
    }

    /// Sends the peer every pending event it was not sent yet, in order: on `backgroundQueue`, so
    /// one sender at a time puts them on the connection (its writes keep that order), and never
    /// under a lock (a write may close the channel and detach the peer on the spot).
    func sendPending(of app: App, to peer: Peer) {
        backgroundQueue.async { [self] in
            guard let backgroundStore else { return }
            let events: [PendingEvent]
            do { events = try backgroundStore.pending(uid: app.key.uid, appID: app.key.appID) } catch {
                logger.error("Cannot read pending events", metadata: ["app": "\(app.key)", "error": "\(error)"])
                return
            }
            let due = app.pendingSent.withLock { sent -> [PendingEvent] in
                let through = sent[peer.id] ?? 0
                let due = events.filter { $0.sequence > through }
                if let last = due.last { sent[peer.id] = last.sequence }
                return due
            }
            // A session's wake-up is the daemon's reason to launch, not an event for the app (0048).
            for event in due where event.kind != PendingKind.session { peer.sendEvent(Self.pendingMessage(event)) }
        }
    }

    func receivePending(peer: Peer, app: App) {
        peer.state.withLock { $0.receivesPending = true }
        backgroundMemory.withLock { $0.unanswered[app.key] = nil }
        sendPending(of: app, to: peer)
    }

    func acknowledgePending(_ sequence: UInt64, channel: PendingChannel?, peer: Peer, app: App) {
        do {
            try backgroundStore?.acknowledge(
                uid: app.key.uid, appID: app.key.appID, through: sequence, kinds: channel?.kinds)
        } catch {
            logger.error("Cannot forget acknowledged events", metadata: ["app": "\(app.key)", "error": "\(error)"])
        }
        backgroundMemory.withLock { $0.unanswered[app.key] = nil }
    }

    // MARK: Launching

    /// Starts the app when the rules allow it (on `backgroundQueue` only: one decision at a time).
    /// Returns when (wall clock) to consider it again, nil when nothing but a change (an event, a
    /// connection closing, a target or switch changed) can make it launchable.
    @discardableResult
    func considerLaunch(_ key: AppKey) -> Double? {
        guard let backgroundStore else { return nil }
        if let app = state.withLock({ $0.apps[key] }), !app.peers.withLock({ $0.isEmpty }) { return nil }
        let target: LaunchTarget
        var launches: [Double]
        do {
            guard let found = try backgroundStore.target(uid: key.uid, appID: key.appID) else { return nil }
            target = found
            launches = try backgroundStore.launches(uid: key.uid, appID: key.appID)
        } catch {
            logger.error("Cannot read the launch target", metadata: ["app": "\(key)", "error": "\(error)"])
            return nil
        }
        if !target.enabled { return refuse(key, "off") }
        if launcher == .none { return refuse(key, "launcher none") }
        if let refusal = target.refusal(daemonUID: daemonUID) { return refuse(key, refusal) }
        let now = wallClock
        // Just restarted: a process of the app may be reconnecting; launching now would make two.
        if now < startedWall + relaunch.reconnectGrace { return startedWall + relaunch.reconnectGrace }
        let unanswered = backgroundMemory.withLock { $0.unanswered[key] ?? 0 }
        switch relaunch.decide(launches: launches, unanswered: unanswered, now: now) {
        case .wait: return relaunch.earliestLaunch(launches: launches, unanswered: unanswered, now: now)
        case .rateLimited:
            refuse(key, "rate-limited")
            return relaunch.earliestLaunch(launches: launches, unanswered: unanswered, now: now)
        case .launch: break
        }
        do {
            try backgroundStore.recordLaunch(uid: key.uid, appID: key.appID, at: now)
            launches.append(now)
            backgroundMemory.withLock { memory in
                memory.unanswered[key] = unanswered + 1
                memory.refusals[key] = nil
            }
            let pid = try launcher.launch(target, logger: logger)
            record(key, "launched \(target.executable) (pid \(pid), reason location)")
            logger.notice("Launched an app for its events", metadata: ["app": "\(key)", "pid": "\(pid)"])
        } catch {
            record(key, "launch failed: \(error)")
            logger.error("Cannot launch the app", metadata: ["app": "\(key)", "error": "\(error)"])
        }
        return relaunch.earliestLaunch(launches: launches, unanswered: unanswered + 1, now: now)
    }

    @discardableResult
    private func refuse(_ key: AppKey, _ reason: String) -> Double? {
        let isNew = backgroundMemory.withLock { memory -> Bool in
            defer { memory.refusals[key] = reason }
            return memory.refusals[key] != reason
        }
        guard isNew else { return nil }
        record(key, "not launched: \(reason)")
        logger.warning("Not launching the app", metadata: ["app": "\(key)", "reason": "\(reason)"])
        return nil
    }

    func record(_ key: AppKey, _ what: String) {
        do {
            try backgroundStore?.record(BackgroundRecord(uid: key.uid, appID: key.appID, at: wallClock, what: what))
        } catch {
            logger.error("Cannot record background history", metadata: ["error": "\(error)"])
        }
    }

    /// The sweep: expired events go (with a record), apps with events and no process are
    /// considered for a launch (retries with backoff). It runs at start, when something changes
    /// (an event stored, an app's last connection closed, a target or switch changed) and at the
    /// next deadline it computed; with nothing pending it does not wake at all (decision 0039).
    func startBackgroundSweep() {
        guard backgroundStore != nil else { return }
        sweepTimer.onFire { [weak self] in self?.wakeSweep() }
        wakeSweep()
    }

    /// Runs the sweep soon, on `backgroundQueue`.
    func wakeSweep() {
        guard backgroundStore != nil else { return }
        backgroundQueue.async { [weak self] in self?.sweep() }
    }

    /// Makes sure the sweep runs by `wall` (seconds since 1970) at the latest.
    func lowerSweep(toWall wall: Double) {
        sweepTimer.lower(to: monotonic(wall: wall))
    }

    /// The scheduler's instant for a wall-clock time, one millisecond late so that a deadline is
    /// never met a hair early (the sweep would find nothing due and sleep for the same deadline).
    /// A wall clock stepped since only moves the sweep, which recomputes its deadline when it runs.
    private func monotonic(wall: Double) -> Double {
        scheduler.now + max(0, wall - wallClock) + 0.001
    }

    func sweep() {
        guard let backgroundStore else { return }
        var next: Double?
        do {
            for expired in try backgroundStore.expire(now: wallClock) {
                logger.warning(
                    "A pending event expired",
                    metadata: ["app": "\(expired.uid):\(expired.appID)", "sequence": "\(expired.event.sequence)"])
            }
            for (uid, appID, _) in try backgroundStore.pendingCounts() {
                if let retry = considerLaunch(AppKey(uid: uid, appID: appID)) { next = min(next ?? retry, retry) }
            }
            if let expiry = try backgroundStore.nextExpiry() { next = min(next ?? expiry, expiry) }
        } catch {
            logger.error("Background sweep failed; trying again in a minute", metadata: ["error": "\(error)"])
            next = wallClock + 60
        }
        sweepTimer.set(next.map { monotonic(wall: $0) })
    }

    // MARK: locationctl background

    func backgroundStatus(for peer: Peer) -> DaemonReply {
        guard let backgroundStore else { return .failure(DaemonError(.storage, "locationd has no database")) }
        let seesAll = peer.identity.uid == 0 || peer.identity.uid == daemonUID
        do {
            let counts = Dictionary(
                try backgroundStore.pendingCounts().map { ("\($0.uid):\($0.appID)", $0.count) }, uniquingKeysWith: +)
            let now = wallClock
            let targets = try backgroundStore.targets().filter { seesAll || $0.uid == peer.identity.uid }.map { target in
                let key = AppKey(uid: target.uid, appID: target.appID)
                let connected = state.withLock { $0.apps[key] }.map { !$0.peers.withLock { $0.isEmpty } } ?? false
                let refusal = backgroundMemory.withLock { $0.refusals[key] }
                let state: String =
                    if connected { "running" } else if !target.enabled { "off" } else if let problem = target.refusal(
                        daemonUID: daemonUID)
                    { problem } else if refusal == "rate-limited" { "rate-limited" } else { "ready" }
                let launches = (try? backgroundStore.launches(uid: target.uid, appID: target.appID)) ?? []
                return BackgroundStatus.Target(
                    app: target.appID, uid: target.uid, executable: target.executable, arguments: target.arguments,
                    workingDirectory: target.workingDirectory, unit: target.unit, enabled: target.enabled, state: state,
                    pending: counts["\(target.uid):\(target.appID)"] ?? 0,
                    recentLaunches: launches.filter { now - $0 < relaunch.window }.count,
                    services: ((try? backgroundStore.services(uid: target.uid, appID: target.appID)) ?? []).sorted())
            }
            let formatter = ISO8601DateFormatter()
            let history = try backgroundStore.records().filter { seesAll || $0.uid == peer.identity.uid }.map {
                "\(formatter.string(from: Date(timeIntervalSince1970: $0.at))) \($0.uid):\($0.appID) \($0.what)"
            }
            return .background(BackgroundStatus(targets: targets, history: history))
        } catch {
            return .failure(DaemonError(.storage, "cannot read the background state: \(error)"))
        }
    }

    func setBackground(app appID: String, enabled: Bool, peer: Peer) -> DaemonReply {
        guard let backgroundStore else { return .failure(DaemonError(.storage, "locationd has no database")) }
        let key = AppKey(uid: peer.identity.uid, appID: appID)
        do {
            guard try backgroundStore.setEnabled(enabled, uid: key.uid, appID: key.appID) else {
                return .failure(DaemonError(.invalidArgument, "\(appID) has no launch target"))
            }
        } catch {
            return .failure(DaemonError(.storage, "cannot store the switch: \(error)"))
        }
        backgroundMemory.withLock { $0.refusals[key] = nil }
        record(key, enabled ? "relaunch turned on" : "relaunch turned off")
        wakeSweep()
        return .ok
    }
}

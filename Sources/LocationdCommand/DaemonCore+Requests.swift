import CoreLocationRuntime
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Synchronization

extension DaemonCore {
    /// Answers one request of a connection that said hello. `reply` may be called on any thread.
    func handle(_ request: DaemonRequest, from peer: Peer, reply: @escaping @Sendable (DaemonReply) -> Void) {
        afterAttach(peer) { [self] in handleAttached(request, from: peer, reply: reply) }
    }

    private func handleAttached(_ request: DaemonRequest, from peer: Peer, reply: @escaping @Sendable (DaemonReply) -> Void) {
        guard let app = app(of: peer) else {
            return reply(.failure(DaemonError(.unknownClient, "this connection has no app")))
        }
        if let refusal = settingsRefusal(request, from: peer) {
            logger.notice(
                "Refused a Settings request from an app",
                metadata: ["pid": "\(peer.identity.pid)", "uid": "\(peer.identity.uid)", "app": "\(app.key.appID)"])
            return reply(.failure(refusal))
        }
        switch request {
        case let .register(client, label):
            if let refusal = refusesRegister(ClientID(client), peer: peer, app: app) { return reply(.failure(refusal)) }
            register(ClientID(client), label: label, peer: peer, app: app)
            reply(.ok)
        case let .command(client, command):
            reply(self.command(ClientCommand(command), client: ClientID(client), peer: peer, app: app))
        case let .requestAuthorization(always):
            let before = peer.lastSequence
            if always { app.authorization.requestAlways() } else { app.authorization.requestWhenInUse() }
            rememberAuthorizationRequest(app, always: always)
            // Every request is answered by an authorization event, even when nothing changed (the
            // app waits for one); a prompt under way sends its own when it ends.
            if peer.lastSequence == before, !app.authorization.isRequestInProgress {
                peer.sendEvent(
                    .authorization(WireAuthorization(effectiveAuthorization(app)), requestInProgress: false), sequenced: true)
            }
            reply(.ok)
        case let .requestTemporaryFullAccuracy(purposeKey):
            app.authorization.requestTemporaryFullAccuracyCode(purposeKey: purposeKey) { reply(.accuracy(errorCode: $0)) }
        case let .authorize(target, decision, accuracy):
            authorize(app: target, decision: decision, accuracy: accuracy, peer: peer, reply: reply)
        case .decisions:
            reply(decisions(for: peer))
        case let .setDefaultPolicy(name):
            reply(setDefaultPolicy(name, peer: peer))
        case let .setServices(enabled):
            guard isAdministrator(peer) else {
                return reply(.failure(DaemonError(.notPermitted, "only root or the daemon's user may switch location services")))
            }
            do {
                try setServices(enabled: enabled)
                reply(.ok)
            } catch {
                reply(.failure(DaemonError(.storage, "cannot store the services switch: \(error)")))
            }
        case .status:
            reply(.status(status(for: peer).bounded()))
        case let .acknowledge(sequence):
            peer.acknowledge(sequence)
        case .ping:
            reply(.ok)
        case let .confirmIdentity(token):
            peer.state.withLock { state in
                if let expected = state.identityToken, expected == token { state.identityConfirmed = true }
            }
        case .registerAgent:
            guard agents.register(peer) else {
                return reply(.failure(DaemonError(.notPermitted, "another prompt agent of this user is running")))
            }
            logger.info(
                "Prompt agent registered", metadata: ["uid": "\(peer.identity.uid)", "pid": "\(peer.identity.pid)"])
            reply(.ok)
        case .monitoredRegions:
            // CLMonitor conditions (a non-empty group) are the monitor's records, not regions.
            reply(.regions(app.runtime.storedRegions.filter { $0.region.group.isEmpty }.map(WireStoredRegion.init)))
        case let .monitorConditions(name):
            let group = PendingKind.monitor(name)
            reply(.regions(app.runtime.storedRegions.filter { $0.region.group == group }.map(WireStoredRegion.init)))
        case .offerPrompts:
            peer.state.withLock { $0.offersPrompts = true }
            reply(.ok)
        case .receivePending:
            receivePending(peer: peer, app: app)
            reply(.ok)
        case let .handingPending(sequence, channel), let .acknowledgePending(sequence, channel):
            acknowledgePending(sequence, channel: channel, peer: peer, app: app)
        case .background:
            reply(backgroundStatus(for: peer))
        case let .setBackground(target, enabled):
            reply(setBackground(app: target, enabled: enabled, peer: peer))
        case let .holdSession(held):
            holdSession(held, peer: peer, app: app)
            reply(.ok)
        case let .monitorBeaconRegion(region):
            reply(monitorBeaconRegion(region, peer: peer, app: app))
        case let .stopMonitoringBeaconRegion(identifier, monitor):
            reply(stopMonitoringBeaconRegion(BeaconRegionSpec.key(identifier, monitor: monitor), app: app))
        case let .monitorBeaconConditions(name):
            reply(beaconConditions(of: name, app: app))
        case .beaconRegions:
            reply(beaconRegions(of: app))
        case let .beaconRegionState(identifier):
            reply(beaconRegionState(identifier, app: app))
        case let .answerPrompt(id, answer):
            if agents.answer(id, answer, from: peer) {
                reply(.ok)
            } else {
                reply(.failure(DaemonError(.notPermitted, "prompt \(id) is not open for this agent")))
            }
        }
    }

    /// A new client past the connection's or the app's limit (decision 0086); registering a client number again
    /// replaces its client and is never refused.
    private func refusesRegister(_ client: ClientID, peer: Peer, app: App) -> DaemonError? {
        let (isNew, onConnection) = peer.state.withLock { ($0.clients[client] == nil, $0.clients.count) }
        guard isNew else { return nil }
        if onConnection >= limits.maximumClientsPerConnection {
            return DaemonError(
                .notPermitted, "this connection has \(onConnection) clients, the most one connection may register")
        }
        let onApp = app.peers.withLock { peers in
            peers.values.reduce(0) { $0 + $1.state.withLock { $0.clients.count } }
        }
        if onApp >= limits.maximumClientsPerApp {
            return DaemonError(.notPermitted, "this app has \(onApp) clients, the most one app may register")
        }
        return nil
    }

    private func register(_ client: ClientID, label: String, peer: Peer, app: App) {
        if let existing = peer.state.withLock({ $0.clients[client] }) {
            app.runtime.send(.unregister, from: existing)
        }
        let engineClient = app.runtime.addClient(label: "\(peer.label): \(label)") { [weak self, weak peer, weak app] event in
            guard let self, let peer, let app else { return }
            self.forward(event, to: peer, as: client, app: app)
        }
        peer.state.withLock { state in
            state.clients[client] = engineClient
            state.labels[client] = label
            state.services[client] = []
        }
        if !servicesEnabled { app.runtime.send(.setAuthorization(effectiveAuthorization(app)), from: engineClient) }
    }

    /// A client's command as the wire carries it (which has no words for `register` and `setAuthorization`:
    /// authorization is decided by locationd, not by its clients).
    private func command(_ command: ClientCommand, client: ClientID, peer: Peer, app: App) -> DaemonReply {
        guard let engineClient = peer.state.withLock({ $0.clients[client] }) else {
            return .failure(DaemonError(.unknownClient, "\(client) is not registered on this connection"))
        }
        peer.state.withLock { state in
            var services = state.services[client] ?? []
            switch command {
            case .startUpdates(let request):
                services.insert("updates")
                // What iOS shows in the status bar (decision 0047): listed beside the updates.
                services.subtract(["background", "indicator"])
                if request.allowsBackground == true { services.insert("background") }
                if request.showsIndicator == true { services.insert("indicator") }
            case .stopUpdates: services.subtract(["updates", "background", "indicator"])
            case .startSignificantChanges: services.insert("significant-changes")
            case .stopSignificantChanges: services.remove("significant-changes")
            case .startVisits: services.insert("visits")
            case .stopVisits: services.remove("visits")
            case .startMonitoring: services.insert("regions")
            default: break
            }
            state.services[client] = services
            if case .unregister = command {
                state.clients[client] = nil
                state.services[client] = nil
                state.labels[client] = nil
            }
        }
        // The app's background client exists before the engine takes the command: the engine may decide a region
        // at once (from its last fix), and whether `forward` drops a monitor condition's change for the pending
        // events must agree with whether the background client heard it. Made after the command, the background
        // client could miss a change whose delivery `forward` then dropped (the engine's actions may be drained on
        // another thread, after the client was made): the app never heard its condition's first state.
        switch command {
        case .startMonitoring, .startSignificantChanges, .startVisits: recordLaunchTarget(of: peer, app: app)
        default: break
        }
        app.runtime.send(command, from: engineClient)
        switch command {
        case .startSignificantChanges, .startVisits, .stopSignificantChanges, .stopVisits:
            backgroundService(command, app: app)
        default: break
        }
        return .ok
    }

    /// An engine event for one client, with the connection's client number: the wire's event (the one
    /// conversion, `WireClientEvent(_:)`). No fix leaves the daemon for an app that may not have it.
    /// Authorization is told once per connection (`authorizationChanged`); the daemon's beacon regions are its
    /// own (DaemonCore+Beacons).
    private func forward(_ event: ClientEvent, to peer: Peer, as client: ClientID, app: App) {
        switch event {
        case let .delivery(delivery):
            guard effectiveAuthorization(app).allowsLocation else { return }
            peer.state.withLock { $0.lastDelivery = scheduler.now - startedAt }
            return peer.send(frame: app.frame(for: delivery, client: client))
        case let .region(notice):
            // Entries and exits of an app watched in the background come as pending events.
            if routesThroughPending(app, notice) { return }
        default: break
        }
        guard let wire = WireClientEvent(event) else { return }
        peer.sendEvent(.client(client.rawValue, wire))
    }

    // MARK: Settings

    private func authorize(
        app target: String, decision: String, accuracy: String?, peer: Peer, reply: @escaping @Sendable (DaemonReply) -> Void
    ) {
        let key = AppKey(uid: peer.identity.uid, appID: target)
        let id = storedID(key)
        guard let store else { return reply(.failure(DaemonError(.storage, "locationd has no database"))) }
        if let refusal = ceilingRefusal(decision: decision, peer: peer) { return reply(.failure(refusal)) }
        do {
            switch decision {
            case "reset":
                try store.reset(appID: id)
            case "always", "when-in-use", "deny", "restricted":
                let level: AuthorizationLevel = switch decision {
                case "always": .always
                case "when-in-use": .whenInUse
                case "restricted": .restricted
                default: .denied
                }
                let previous = try store.decision(for: id)
                try store.save(
                    AuthorizationDecision(
                        appID: id, level: level, accuracy: accuracy == "reduced" ? .reduced : .full, decidedAt: Date(),
                        provisional: false, usageDescription: previous?.usageDescription))
            default:
                return reply(.failure(DaemonError(.invalidArgument, "unknown decision \"\(decision)\"")))
            }
        } catch {
            return reply(.failure(DaemonError(.storage, "cannot store the decision: \(error)")))
        }
        guard let app = state.withLock({ $0.apps[key] }) else { return reply(.ok) }
        // Tell the running app and answer once it has taken the change (or the wait ran out), so
        // no fix reaches it after the command returned.
        // The service's observer tells every connection of the app once (`authorizationChanged`);
        // the command waits for the latest sequenced event each connection was sent.
        app.authorization.reloadStoredDecision(overridingSession: true)
        let sent = app.peers.withLock { Array($0.values) }.compactMap { peer in peer.lastSequence.map { (peer, $0) } }
        guard !sent.isEmpty else { return reply(.ok) }
        let remaining = Mutex(sent.count)
        let answered = Atomic(false)
        let finish: @Sendable () -> Void = {
            if !answered.exchange(true, ordering: .relaxed) { reply(.ok) }
        }
        for (waiting, sequence) in sent {
            waiting.whenAcknowledged(sequence) {
                if remaining.withLock({ count -> Bool in
                    count -= 1
                    return count == 0
                }) { finish() }
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + limits.acknowledgeTimeout, execute: finish)
    }

    /// The caller's user's decisions, named as that user names the apps; root and the daemon's user see
    /// everyone's, other users' as `UID:APP` (the daemon's own user's keep their plain names).
    private func decisions(for peer: Peer) -> DaemonReply {
        guard let store else { return .failure(DaemonError(.storage, "locationd has no database")) }
        let seesAll = peer.identity.uid == 0 || peer.identity.uid == daemonUID
        let ownPrefix = "\(peer.identity.uid):"
        do {
            let visible = try store.allDecisions().compactMap { decision -> AuthorizationDecision? in
                if seesAll { return decision }
                guard decision.appID.hasPrefix(ownPrefix) else { return nil }
                var own = decision
                own.appID = String(decision.appID.dropFirst(ownPrefix.count))
                return own
            }
            return .decisions(visible.map(WireDecision.init), defaultPolicy: try store.defaultPolicy().map(WireDefaultPolicy.init))
        } catch {
            return .failure(DaemonError(.storage, "cannot read the decisions: \(error)"))
        }
    }

    private func setDefaultPolicy(_ name: String?, peer: Peer) -> DaemonReply {
        guard isAdministrator(peer) else {
            return .failure(DaemonError(.notPermitted, "only root or the daemon's user may set the default policy"))
        }
        guard let store else { return .failure(DaemonError(.storage, "locationd has no database")) }
        let policy = name.flatMap(DefaultPolicy.init(rawValue:))
        if name != nil, policy == nil {
            return .failure(DaemonError(.invalidArgument, "unknown default policy \"\(name ?? "")\""))
        }
        do {
            try store.setDefaultPolicy(policy)
            administratorPolicyChanged()
            return .ok
        } catch {
            return .failure(DaemonError(.storage, "cannot store the default policy: \(error)"))
        }
    }

    func status(for peer: Peer) -> DaemonStatus {
        let seesAll = peer.identity.uid == 0 || peer.identity.uid == daemonUID
        let apps = state.withLock { Array($0.apps.values) }
            .filter { seesAll || $0.key.uid == peer.identity.uid }
            .sorted { ($0.key.uid, $0.key.appID) < ($1.key.uid, $1.key.appID) }
        return DaemonStatus(
            pid: ProcessInfo.processInfo.processIdentifier,
            servicesEnabled: servicesEnabled,
            database: databasePath,
            apps: apps.map { app in
                let peers = app.peers.withLock { Array($0.values) }.sorted { $0.id < $1.id }
                let clients = peers.flatMap { peer in
                    peer.state.withLock { state in
                        state.labels.sorted { $0.key.rawValue < $1.key.rawValue }.map { client, label in
                            DaemonStatus.Client(
                                pid: peer.identity.pid, label: "\(peer.label): \(label)",
                                services: (state.services[client] ?? []).sorted(), lastDelivery: state.lastDelivery)
                        }
                    }
                } + app.protocolClients.withLock { Array($0.values) }.sorted { $0.id < $1.id }.map { client in
                    DaemonStatus.Client(
                        pid: client.pid ?? 0, label: "\(client.service.name): \(client.label)",
                        services: client.services.withLock { $0.sorted() }, lastDelivery: client.lastDelivery.withLock { $0 })
                }
                return DaemonStatus.App(
                    app: app.key.appID, uid: app.key.uid, authorization: WireAuthorization(effectiveAuthorization(app)),
                    clients: clients)
            },
            sources: sources.report().map {
                DaemonStatus.Source(
                    id: $0.descriptor.id.rawValue, name: $0.descriptor.kind, powered: $0.powered, onTime: $0.onTime,
                    state: $0.state, detail: $0.detail, lastFix: $0.lastFix.map { $0 - startedAt },
                    // A modem's origin names its serving cell, a coarse position: the machine's owner sees it,
                    // other users as little as of other users' apps.
                    origin: seesAll ? $0.origin : nil)
            })
    }
}

import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationRuntime
import Foundation
import Synchronization

/// The other protocols locationd speaks (GeoClue2 on D-Bus, gpsd's JSON; decision 0088), each named in logs,
/// in `locationctl status` and in the usage description a prompt shows for a program with no Info.plist.
struct ProtocolService: Sendable, Hashable {
    /// `geoclue`, `gpsd`: the label's prefix in `locationctl status`.
    var name: String
    /// What the prompt says when the program has no usage description of its own.
    var usageDescription: String

    static let geoclue = ProtocolService(
        name: "geoclue", usageDescription: "This program asks for your location through GeoClue.")
    static let gpsd = ProtocolService(
        name: "gpsd", usageDescription: "This program asks for your location through gpsd's protocol.")
}

/// One client of another protocol: one engine client of the app its process is, like one `CLLocationManager`
/// of a socket client. Its events come through `DaemonCore.openProtocolClient`'s handler; a delivery reaches
/// it only while its app may have one.
final class ProtocolClient: Sendable {
    let id: UInt64
    let service: ProtocolService
    let app: DaemonCore.App
    let engineClient: ClientID
    /// The process, when the kernel named one; nil for a peer locationd cannot identify.
    let pid: Int32?
    let label: String
    /// What `locationctl status` lists beside it (`updates`).
    let services = Mutex<Set<String>>([])
    /// Seconds since the daemon started, of its last delivery.
    let lastDelivery = Mutex<Double?>(nil)
    let isClosed = Atomic(false)
    /// Held at reduced accuracy whatever its app's decision (a GeoClue client that asked for CITY or coarser).
    let isReduced = Atomic(false)

    init(id: UInt64, service: ProtocolService, app: DaemonCore.App, engineClient: ClientID, pid: Int32?, label: String) {
        self.id = id
        self.service = service
        self.app = app
        self.engineClient = engineClient
        self.pid = pid
        self.label = label
    }
}

extension DaemonCore {
    /// The app every peer locationd cannot identify (another host, a process it may not see) is: decided by the
    /// headless policy, never by an agent (nobody's agent speaks for an unknown process), and changeable by the
    /// daemon's user with `locationctl authorize unidentified-peer …`.
    static let unidentifiedAppID = "unidentified-peer"

    /// Opens an engine client for a process that speaks another protocol. `identity` is the kernel's (nil: the
    /// peer cannot be identified); the app is the one a socket client of the same executable is, made here
    /// when it has no other client. Reads files (the Info.plist): call it off the event loops.
    func openProtocolClient(
        identity: PeerIdentity?, service: ProtocolService, label: String,
        events: @escaping @Sendable (ClientEvent) -> Void
    ) -> ProtocolClient {
        let key: AppKey
        var appIdentity: AppIdentity
        if let identity {
            appIdentity = self.appIdentity(
                executable: identity.executable, arguments: { PeerIdentity.arguments(of: identity.pid) },
                infoPlist: identity.uid == daemonUID ? identity.infoPlist : nil, owner: identity.uid)
            key = AppKey(uid: identity.uid, appID: appIdentity.id)
        } else {
            appIdentity = AppIdentity(id: Self.unidentifiedAppID, displayName: "An unidentified program")
            key = AppKey(uid: daemonUID, appID: Self.unidentifiedAppID)
        }
        appIdentity.id = storedID(key)
        // A program written for GeoClue or gpsd has no Info.plist: its prompt says which protocol asked.
        if appIdentity.whenInUseDescription == nil {
            appIdentity.info[AppIdentity.whenInUseKey] = service.usageDescription
        }
        let app = state.withLock { state -> App in
            if let app = state.apps[key] { return app }
            let app = makeApp(key: key, identity: appIdentity, asksAgent: identity != nil)
            state.apps[key] = app
            return app
        }
        let id = nextPeerID()
        let client = Mutex<ProtocolClient?>(nil)
        let engineClient = app.runtime.addClient(label: "\(service.name): \(label)") { [weak self, weak app] event in
            guard let self, let app, let opened = client.withLock({ $0 }), !opened.isClosed.load(ordering: .relaxed)
            else { return }
            switch event {
            case let .delivery(delivery):
                guard self.effectiveAuthorization(app).allowsLocation else { return }
                // A precise fix the engine released before the cap reached it.
                if opened.isReduced.load(ordering: .relaxed), !delivery.accuracyLimited { return }
                opened.lastDelivery.withLock { $0 = self.scheduler.now - self.startedAt }
            case var .authorization(authorization):
                // The app's decision changed and the engine was told it for every client: the cap again.
                if opened.isReduced.load(ordering: .relaxed), authorization.accuracy == .full {
                    authorization.accuracy = .reduced
                    app.runtime.send(.setAuthorization(authorization), from: opened.engineClient)
                }
            default: break
            }
            events(event)
        }
        let opened = ProtocolClient(
            id: id, service: service, app: app, engineClient: engineClient, pid: identity?.pid, label: label)
        client.withLock { $0 = opened }
        app.protocolClients.withLock { $0[id] = opened }
        if !servicesEnabled { app.runtime.send(.setAuthorization(effectiveAuthorization(app)), from: engineClient) }
        logger.info(
            "Protocol client opened",
            metadata: [
                "protocol": "\(service.name)", "pid": "\(identity.map { "\($0.pid)" } ?? "unidentified")",
                "app": "\(key.appID)",
            ])
        return opened
    }

    /// The app's decision for the client, asked for (as `requestWhenInUseAuthorization`) when there is none:
    /// the user's agent answers, else the headless policy. Returns once decided, or at once when no question
    /// can be asked (services off, a request refused).
    func authorize(_ client: ProtocolClient) async -> ClientAuthorization {
        let app = client.app
        let current = effectiveAuthorization(app)
        guard current.level == .notDetermined, servicesEnabled else { return current }
        return await withCheckedContinuation { (continuation: CheckedContinuation<ClientAuthorization, Never>) in
            let resumed = Atomic(false)
            let token = Mutex<UInt64?>(nil)
            let finish: @Sendable () -> Void = { [self] in
                guard !resumed.exchange(true, ordering: .relaxed) else { return }
                if let observer = token.withLock({ $0 }) { app.authorization.removeObserver(observer) }
                continuation.resume(returning: effectiveAuthorization(app))
            }
            let observer = app.authorization.addObserver { [self] _ in
                if effectiveAuthorization(app).level != .notDetermined || !app.authorization.isRequestInProgress {
                    finish()
                }
            }
            token.withLock { $0 = observer }
            // The app may have been made for a socket client of the same executable, without the protocol's text.
            app.authorization.requestWhenInUse(fallbackDescription: client.service.usageDescription)
            // Nothing asked (a request already decided, or refused without a question): the answer is now.
            if effectiveAuthorization(app).level != .notDetermined || !app.authorization.isRequestInProgress { finish() }
        }
    }

    /// Holds the client at reduced accuracy (the engine's cell centres) whatever its app's decision, or lets it
    /// have what the decision allows again.
    func capAccuracy(_ client: ProtocolClient, reduced: Bool) {
        guard !client.isClosed.load(ordering: .relaxed) else { return }
        client.isReduced.store(reduced, ordering: .relaxed)
        var authorization = effectiveAuthorization(client.app)
        if reduced { authorization.accuracy = .reduced }
        client.app.runtime.send(.setAuthorization(authorization), from: client.engineClient)
    }

    /// Starts (or changes) the client's updates.
    func startUpdates(_ client: ProtocolClient, _ request: UpdateRequest) {
        guard !client.isClosed.load(ordering: .relaxed) else { return }
        client.services.withLock { _ = $0.insert("updates") }
        client.app.runtime.send(.startUpdates(request), from: client.engineClient)
    }

    func stopUpdates(_ client: ProtocolClient) {
        guard !client.isClosed.load(ordering: .relaxed) else { return }
        client.services.withLock { _ = $0.remove("updates") }
        client.app.runtime.send(.stopUpdates, from: client.engineClient)
    }

    /// The client is gone (its connection closed, it left the bus, it was deleted): its engine client goes, and
    /// its app when nothing else holds it. Closing twice does nothing.
    func close(_ client: ProtocolClient) {
        guard !client.isClosed.exchange(true, ordering: .relaxed) else { return }
        let app = client.app
        app.runtime.removeClients([client.engineClient])
        app.protocolClients.withLock { $0[client.id] = nil }
        dropIfIdle(app)
        logger.info("Protocol client closed", metadata: ["protocol": "\(client.service.name)", "app": "\(app.key.appID)"])
    }
}

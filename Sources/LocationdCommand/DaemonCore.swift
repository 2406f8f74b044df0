import CoreLocationRuntime
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import NIOCore
import Synchronization

/// Everything the daemon knows: the apps with their engines, the connections, the services switch.
/// Apps are keyed by (uid, app id); each has its own engine, authorization and regions over the
/// shared sources (decision 0010 says why one engine per app).
final class DaemonCore: Sendable {
    struct AppKey: Hashable, Sendable, CustomStringConvertible {
        var uid: UInt32
        var appID: String
        var description: String { "\(uid):\(appID)" }
    }

    final class App: Sendable {
        let key: AppKey
        let runtime: EngineHost
        var authorization: AuthorizationService { runtime.authorization }
        let peers = Mutex<[UInt64: Peer]>([:])
        let observer = Mutex<UInt64?>(nil)
        /// The latest delivery, encoded once, with its frames ready to write: the engine hands the
        /// same fix to each of the app's clients, and every connection writes the same buffer.
        let encodedDelivery = Mutex<EncodedDelivery?>(nil)
        /// The daemon's own engine client for the app's background events (decision 0026); while
        /// set, the app stays when its last connection closes.
        let backgroundClient = Mutex<ClientID?>(nil)
        /// Held while the background client is made, so that it is made once; never held while
        /// `backgroundClient` is read (making the client may deliver engine events, whose routing reads it).
        let backgroundClientMaking = Mutex(())
        /// Per connection: the highest pending event sent to it.
        let pendingSent = Mutex<[UInt64: UInt64]>([:])
        /// The services the background client runs for the app (`significant-changes`, `visits`;
        /// decision 0039).
        let heldServices = Mutex<Set<String>>([])
        /// The background client's next significant change is its baseline, not a change: it
        /// restarted the service (a daemon restart) without the fix it last reported.
        let significantBaseline = Mutex(false)
        /// The daemon's engine client that keeps an interrupted session's updates running while
        /// the app does not (decision 0048), and when it started them (wall clock; nil while it
        /// runs none): only a fix newer than that wakes the app.
        let sessionClient = Mutex<ClientID?>(nil)
        let sessionInterrupted = Mutex<Double?>(nil)
        /// The app's beacon regions and the session that watches them on the daemon's scanner
        /// (decision 0050).
        let beaconRegions = Mutex<[String: BeaconRegionSpec]>([:])
        let beaconSession = Mutex<BeaconRangingSession?>(nil)
        /// The app's clients of other protocols (GeoClue2, gpsd; decision 0088), by their number: while any is
        /// open the app stays when its last connection closes.
        let protocolClients = Mutex<[UInt64: ProtocolClient]>([:])
        /// What the app's connections last asked for (`true`: Always), kept with its launch target so that a
        /// restarted daemon asks the headless policy again for it (issue 37).
        let authorizationRequest = Mutex<Bool?>(nil)

        /// The frame of `delivery` to `client` (the connection's client number): encoded on the
        /// first of the fan-out's clients, the same buffer for the others.
        func frame(for delivery: Delivery, client: ClientID) -> ByteBuffer {
            encodedDelivery.withLock { cached in
                if cached?.delivery != delivery {
                    cached = EncodedDelivery(delivery: delivery, json: DeliveryJSON.encode(WireDelivery(delivery)))
                }
                if let frame = cached?.frames[client.rawValue] { return frame }
                let json = cached?.json ?? []
                let frame = ByteBuffer(bytes: DaemonProtocol.deliveryFrame(client: client.rawValue, encodedDelivery: json))
                cached?.frames[client.rawValue] = frame
                return frame
            }
        }

        init(key: AppKey, runtime: EngineHost) {
            self.key = key
            self.runtime = runtime
        }
    }

    /// One delivery's JSON and its frames by client number (`App.frame(for:client:)`).
    struct EncodedDelivery {
        var delivery: Delivery
        var json: [UInt8]
        var frames: [UInt64: ByteBuffer] = [:]
    }

    struct State {
        var apps: [AppKey: App] = [:]
        var servicesEnabled = true
        var nextPeer: UInt64 = 0
    }

    let store: AuthorizationStore?
    let databasePath: String
    let sources: SharedSources
    let scheduler: any Scheduler
    let configuration: LocationEngine.Configuration
    let environmentPolicy: DefaultPolicy?
    let limits: DaemonLimits
    let logger: Logger
    let daemonUID: UInt32
    let startedAt: Double
    let agents: AgentRegistry
    let state = Mutex(State())
    /// The administrator's default policy is `deny`: a ceiling for every user who does not administer the daemon
    /// (`bindsToAdministrator`, decision 0092). Not in `state`: apps are made while `state` is held.
    let administratorDenies = Atomic(false)
    /// Connections whose app is being resolved (`attach`), with the requests that wait for it.
    let attaching = Mutex<[UInt64: [@Sendable () -> Void]]>([:])
    /// The connections' writes, one queue per event loop (`LoopWriter`).
    let writers = LoopWriters()
    let backgroundStore: BackgroundStore?
    /// The daemon's beacon scanner (its `CORELOCATION_BEACONS`), opened at the first beacon region.
    let beaconScanner = Mutex<BeaconRuntime?>(nil)
    let launcher: Launcher
    let relaunch: RelaunchPolicy
    /// Launch decisions and the sweep, one at a time.
    let backgroundQueue = DispatchQueue(label: "locationd.background")
    let backgroundMemory = Mutex(BackgroundMemory())
    /// Wakes the background sweep at its next deadline only (decision 0039).
    let sweepTimer: SweepTimer
    /// The wall clock, seconds since 1970: launch times and expiries outlive the process (tests
    /// pass the manual scheduler's).
    let wallNow: @Sendable () -> Double
    /// When the daemon started, on the wall clock (the relaunch policy's reconnect grace).
    let startedWall: Double

    init(
        store: AuthorizationStore?, databasePath: String, sources: SharedSources, scheduler: any Scheduler,
        configuration: LocationEngine.Configuration, environmentPolicy: DefaultPolicy?, limits: DaemonLimits,
        daemonUID: UInt32, agents: AgentRegistry = AgentRegistry(timeout: 60), launcher: Launcher = .exec,
        relaunch: RelaunchPolicy = RelaunchPolicy(), wallNow: @escaping @Sendable () -> Double = {
            Date().timeIntervalSince1970
        }, logger: Logger
    ) {
        self.wallNow = wallNow
        sweepTimer = SweepTimer(scheduler: scheduler)
        backgroundStore = store.map { BackgroundStore(database: $0.database, writeFault: Self.writeFault()) }
        self.launcher = launcher
        self.relaunch = relaunch
        self.agents = agents
        self.store = store
        self.databasePath = databasePath
        self.sources = sources
        self.scheduler = scheduler
        self.configuration = configuration
        self.environmentPolicy = environmentPolicy
        self.limits = limits
        self.daemonUID = daemonUID
        self.logger = logger
        startedAt = scheduler.now
        startedWall = wallNow()
        var enabled = true
        do { enabled = try store?.servicesEnabled() ?? true } catch {
            logger.error("Cannot read the services switch; services stay on", metadata: ["error": "\(error)"])
        }
        state.withLock { $0.servicesEnabled = enabled }
        administratorDenies.store(
            Self.readAdministratorDenies(environmentPolicy: environmentPolicy, store: store, logger: logger),
            ordering: .sequentiallyConsistent)
    }

    var servicesEnabled: Bool { state.withLock { $0.servicesEnabled } }

    /// The key decisions of an app are stored under: the app id for the daemon's own user,
    /// `UID:app` for another user's (other users are a boundary; decision 0011).
    func storedID(_ key: AppKey) -> String {
        key.uid == daemonUID ? key.appID : "\(key.uid):\(key.appID)"
    }

    // MARK: Connections

    /// The locationctl installed with this daemon (same directory): the app `locationctl`, with its
    /// usage descriptions, as it is in process — not an anonymous executable path.
    static let siblingLocationctl: String? = {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (own as NSString).deletingLastPathComponent + "/locationctl"
    }()

    func nextPeerID() -> UInt64 {
        state.withLock { state in
            state.nextPeer += 1
            return state.nextPeer
        }
    }

    /// The app a process is: the locationctl beside the daemon is `locationctl`, but for `locationctl report`
    /// (the reporter, its own app with a launch target: decision 0045); any other executable is resolved
    /// from its Info.plist. `arguments` (argv[1...]) is read only for the sibling locationctl. Reads files:
    /// called on `identityQueue`, never on an event loop.
    func appIdentity(executable: String, arguments: () -> [String]?, infoPlist: String?, owner: UInt32) -> AppIdentity {
        guard executable == Self.siblingLocationctl else {
            return AppIdentity.resolve(executable: executable, infoPlist: infoPlist, owner: owner, logger: logger)
        }
        return arguments()?.first == "report" ? .locationctlReporter : .locationctl
    }

    /// Where a client's identity is resolved (its Info.plist read): off the event loops, so a slow file
    /// stalls no other client's hello (issue 37). Concurrent: each read is bounded (decision 0069).
    static let identityQueue = DispatchQueue(label: "locationd.identity", attributes: .concurrent)

    /// Groups a new connection under its app (made on first use) and gives `then` the hello to send. The
    /// app is resolved on `identityQueue`; requests the connection sends meanwhile wait (`handle`), in order.
    func attach(_ peer: Peer, then: @escaping @Sendable (ServerHello) -> Void) {
        attaching.withLock { $0[peer.id] = [] }
        Self.identityQueue.async { [self] in
            then(attachNow(peer))
            // Requests that came while the app was resolved, in their order; one that comes while these run
            // is queued behind them, as the entry goes only when the queue is found empty.
            while true {
                let waiting = attaching.withLock { attaching -> [@Sendable () -> Void] in
                    let waiting = attaching[peer.id] ?? []
                    if waiting.isEmpty { attaching[peer.id] = nil } else { attaching[peer.id] = [] }
                    return waiting
                }
                if waiting.isEmpty { break }
                for request in waiting { request() }
            }
        }
    }

    /// Runs `request` now, or after the connection's app is resolved when that is under way.
    func afterAttach(_ peer: Peer, _ request: @escaping @Sendable () -> Void) {
        let queued = attaching.withLock { attaching -> Bool in
            guard attaching[peer.id] != nil else { return false }
            attaching[peer.id, default: []].append(request)
            return true
        }
        if !queued { request() }
    }

    private func attachNow(_ peer: Peer) -> ServerHello {
        let identity = peer.identity
        // A process's environment names its Info.plist only for our own user's processes.
        let plist = identity.uid == daemonUID ? identity.infoPlist : nil
        var appIdentity = appIdentity(
            executable: identity.executable, arguments: { PeerIdentity.arguments(of: identity.pid) }, infoPlist: plist,
            owner: identity.uid)
        let key = AppKey(uid: identity.uid, appID: appIdentity.id)
        appIdentity.id = storedID(key)
        let app = state.withLock { state -> App in
            if let app = state.apps[key] { return app }
            let app = makeApp(key: key, identity: appIdentity)
            state.apps[key] = app
            return app
        }
        app.peers.withLock { $0[peer.id] = peer }
        // 128 bits from the system's generator (getrandom): not guessable by a process that wrote its requests
        // before this hello was sent.
        var generator = SystemRandomNumberGenerator()
        let token = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        peer.state.withLock {
            $0.app = key
            $0.identityToken = token
        }
        logger.info(
            "Client connected",
            metadata: [
                "pid": "\(identity.pid)", "uid": "\(identity.uid)", "app": "\(key.appID)",
                "label": "\(peer.label)",
            ])
        return ServerHello(
            app: key.appID, uid: identity.uid, pid: identity.pid, servicesEnabled: servicesEnabled,
            authorization: WireAuthorization(effectiveAuthorization(app)), token: token)
    }

    /// `asksAgent` false: no agent is asked for this app, the headless policy answers (a peer nobody can
    /// identify, decision 0088).
    func makeApp(key: AppKey, identity: AppIdentity, asksAgent: Bool = true) -> App {
        // Prompts go to the user's agent when one is registered; otherwise the headless policy.
        let agent: any AuthorizationAgent =
            asksAgent ? AgentRegistry.ForApp(registry: agents, core: self, key: key) : AgentRegistry.Nobody()
        let service = AuthorizationService.brokered(
            identity: identity, store: store, environmentPolicy: environmentPolicy,
            sourcesAreSimulated: Composition.areSimulated(sources.sources), agent: agent, logger: logger)
        // Before anything observes the service or its engine has a client: no app ever reads the uncapped level.
        if bindsToAdministrator(key.uid), administratorDenies.load(ordering: .sequentiallyConsistent) {
            service.setRestrictedByAdministrator(true)
        }
        let runtime = EngineHost(
            sources: sources.proxies(), scheduler: scheduler, authorization: service, configuration: configuration,
            regionStore: store.map { RegionStore(database: $0.database) }, logger: logger)
        let app = App(key: key, runtime: runtime)
        let token = service.addObserver { [weak self, weak app] _ in
            guard let self, let app else { return }
            self.authorizationChanged(app)
        }
        app.observer.withLock { $0 = token }
        return app
    }

    /// The connection closed: its clients go; an app with no connection left is dropped (its
    /// session-only decisions with it; its regions stay stored).
    func detach(_ peer: Peer) {
        // After the app is resolved: detached before, the connection would be added to its app afterwards.
        afterAttach(peer) { [self] in detachNow(peer) }
    }

    private func detachNow(_ peer: Peer) {
        peer.releaseWaiters()
        agents.detach(peer)
        guard let key = peer.state.withLock({ $0.app }), let app = state.withLock({ $0.apps[key] }) else { return }
        let clients = peer.state.withLock { state in
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        app.runtime.removeClients(clients)
        sessionOnDetach(peer, app: app)
        let empty = app.peers.withLock { peers in
            peers[peer.id] = nil
            return peers.isEmpty
        }
        app.pendingSent.withLock { $0[peer.id] = nil }
        // An app watched in the background: the sweep considers launching it for events it left pending.
        if empty, app.backgroundClient.withLock({ $0 }) != nil { wakeSweep() }
        dropIfIdle(app)
        logger.info("Client disconnected", metadata: ["pid": "\(peer.identity.pid)", "app": "\(key.appID)"])
    }

    /// Drops an app nothing holds: no connection, no client of another protocol, not watched in the background
    /// (such an app stays: its engine keeps its regions). Its session-only decisions go with it; its regions stay
    /// stored.
    func dropIfIdle(_ app: App) {
        guard app.backgroundClient.withLock({ $0 }) == nil else { return }
        let dropped = state.withLock { state -> Bool in
            guard state.apps[app.key] === app, app.peers.withLock({ $0.isEmpty }),
                app.protocolClients.withLock({ $0.isEmpty })
            else { return false }
            state.apps[app.key] = nil
            return true
        }
        if dropped, let token = app.observer.withLock({ $0 }) { app.authorization.removeObserver(token) }
    }

    /// Every engine client of the app: its connections' and its other protocols'.
    func engineClients(of app: App) -> [ClientID] {
        app.peers.withLock { peers in peers.values.flatMap { $0.state.withLock { Array($0.clients.values) } } }
            + app.protocolClients.withLock { $0.values.map(\.engineClient) }
    }

    func app(of peer: Peer) -> App? {
        guard let key = peer.state.withLock({ $0.app }) else { return nil }
        return state.withLock { $0.apps[key] }
    }

    // MARK: Authorization

    /// What the app's clients are told: its decision, or denied while location services are off.
    func effectiveAuthorization(_ app: App) -> ClientAuthorization {
        var authorization = app.authorization.authorization
        if !servicesEnabled { authorization.level = .denied }
        return authorization
    }

    /// Tells every connection of the app; returns the sequence number sent to each.
    @discardableResult
    func authorizationChanged(_ app: App) -> [(Peer, UInt64)] {
        let authorization = effectiveAuthorization(app)
        if !servicesEnabled { denyEngineClients(of: app) }
        let inProgress = app.authorization.isRequestInProgress
        let peers = app.peers.withLock { Array($0.values) }
        return peers.compactMap { peer in
            peer.sendEvent(.authorization(WireAuthorization(authorization), requestInProgress: inProgress), sequenced: true)
                .map { (peer, $0) }
        }
    }

    /// Every engine client of the app is told the app's effective authorization: with services off, denied, so
    /// sources power down; with them on again, the app's own decision.
    func denyEngineClients(of app: App) {
        let authorization = effectiveAuthorization(app)
        for client in engineClients(of: app) { app.runtime.send(.setAuthorization(authorization), from: client) }
    }

    func setServices(enabled: Bool) throws {
        try store?.setServicesEnabled(enabled)
        state.withLock { $0.servicesEnabled = enabled }
        logger.notice("Location services switched", metadata: ["enabled": "\(enabled)"])
        let apps = state.withLock { Array($0.apps.values) }
        for app in apps {
            denyEngineClients(of: app)
            for peer in app.peers.withLock({ Array($0.values) }) { peer.sendEvent(.services(enabled: enabled)) }
            authorizationChanged(app)
        }
    }
}

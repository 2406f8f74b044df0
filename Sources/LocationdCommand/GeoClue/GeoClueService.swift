import CoreLocationDBus
import CoreLocationEngine
import CoreLocationRuntime
import Foundation
import Logging
import Synchronization

/// `org.freedesktop.GeoClue2` served by locationd (issue 38, decision 0074): GeoClue 2.6's Manager, Client and
/// Location objects over the daemon's engine. Each GeoClue client is one engine client of the app its process is
/// (decision 0088): the same sources, the same decisions (`locationctl authorize`), the same reduced accuracy.
///
/// Calls arrive on the bus connection's thread and are answered from tasks (the caller's credentials, the
/// decision, the engine are asked first); deliveries come on the engine's thread and go out as signals.
final class GeoClueService: Sendable {
    static let busName = "org.freedesktop.GeoClue2"
    static let root = "/org/freedesktop/GeoClue2"
    static let managerPath = root + "/Manager"
    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    static let agentInterface = "org.freedesktop.GeoClue2.Agent"
    static let agentPath = root + "/Agent"
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// One GeoClue client object.
    struct Client {
        var path: String
        /// The unique name of the connection that made it: only it may use it.
        var owner: String
        /// The engine client, once the caller's identity is known.
        var opening: Task<ProtocolClient?, Never>
        var active = false
        var location: String = "/"
        var previousLocation: String?
        var nextLocation: UInt64 = 0
        /// Monotonic seconds of the last `LocationUpdated` (the time threshold).
        var lastUpdate: Double?
    }

    struct State {
        var clients: [String: Client] = [:]
        /// `GetClient`'s one client per caller.
        var shared: [String: String] = [:]
        var nextClient: UInt64 = 0
        /// GeoClue agents (`AddAgent`) by uid: their unique names.
        var agents: [UInt32: String] = [:]
    }

    let core: DaemonCore
    let bus: DBusClient
    let objects: DBusObjectStore
    let logger: Logger
    let state = Mutex(State())
    /// The most clients one caller may hold (a caller that creates 10^4 gets `LimitsExceeded`).
    let clientsPerCaller: Int
    /// What was exported and subscribed, kept for as long as the service runs.
    let held = Mutex<[any Sendable]>([])

    init(core: DaemonCore, bus: DBusClient, logger: Logger) {
        self.core = core
        self.bus = bus
        self.logger = logger
        clientsPerCaller = core.limits.maximumClientsPerConnection
        objects = DBusObjectStore(
            root: Self.root,
            objects: [
                Self.managerPath: [
                    Self.managerInterface: [
                        "InUse": .bool(false), "AvailableAccuracyLevel": .uint32(GeoClueLevel.exact.rawValue),
                    ]
                ]
            ],
            // GeoClue has no ObjectManager: its clients follow `LocationUpdated`, which names the new location.
            announcesObjects: false)
    }

    /// Connects to `bus`, exports the objects and takes the name. Throws when the name is held by another service
    /// (geoclue itself) or the bus cannot be reached.
    static func start(bus address: DBusClient.Bus, core: DaemonCore, logger: Logger) async throws -> GeoClueService {
        let bus = try DBusClient(bus: address, logger: logger)
        let service = GeoClueService(core: core, bus: bus, logger: logger)
        let export = try bus.export(
            service.objects, answering: { [weak service] call, replier in
                guard let service else { return replier.send(.unknownMethod(call)) }
                service.answer(call, replier)
            },
            setProperty: { [weak service] write in
                service?.setProperty(write) ?? .error(name: DBusMethodResult.failedName, message: "the service stopped")
            })
        let watch = try await bus.watchNameOwnerChanges { [weak service] name, old, new in
            guard let service, name.hasPrefix(":"), old != nil, new == nil else { return }
            service.callerLeft(name)
        }
        service.held.withLock { $0 = [export, watch] }
        switch try await bus.requestName(busName, flags: [.doNotQueue]) {
        case .primaryOwner, .alreadyOwner:
            logger.info("Serving GeoClue2", metadata: ["bus": "\(address)"])
            return service
        case .exists, .inQueue:
            bus.close()
            throw DBusCallError(.remote, "\(busName) is owned by another service (geoclue?)")
        }
    }

    func stop() {
        let clients = state.withLock { state -> [Client] in
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { Task { if let opened = await client.opening.value { core.close(opened) } } }
        bus.close()
    }

    // MARK: Calls

    private func answer(_ call: DBusMethodCall, _ replier: DBusReplier) {
        guard let sender = call.sender else {
            return replier.send(.error(name: Self.accessDenied, message: "a call without a sender"))
        }
        switch (call.interface, call.member) {
        case (Self.managerInterface, "GetClient") where call.path == Self.managerPath:
            replier.send(client(for: sender, shared: true))
        case (Self.managerInterface, "CreateClient") where call.path == Self.managerPath:
            replier.send(client(for: sender, shared: false))
        case (Self.managerInterface, "DeleteClient") where call.path == Self.managerPath:
            guard call.arguments.count == 1, case let .objectPath(path) = call.arguments[0] else {
                return replier.send(.error(name: DBusMethodResult.invalidArgsName, message: "DeleteClient takes (o)"))
            }
            replier.send(delete(path, by: sender))
        case (Self.managerInterface, "AddAgent") where call.path == Self.managerPath:
            guard call.arguments.count == 1, call.arguments[0].string != nil else {
                return replier.send(.error(name: DBusMethodResult.invalidArgsName, message: "AddAgent takes (s)"))
            }
            Task { replier.send(await addAgent(sender)) }
        case (Self.clientInterface, "Start"):
            guard let client = owned(call.path, by: sender, replier) else { return }
            Task { replier.send(await start(client)) }
        case (Self.clientInterface, "Stop"):
            guard let client = owned(call.path, by: sender, replier) else { return }
            Task { replier.send(await stop(client)) }
        default:
            replier.send(.unknownMethod(call))
        }
    }

    /// The client at `path` if `sender` made it; otherwise the caller is answered here.
    private func owned(_ path: String, by sender: String, _ replier: DBusReplier) -> Client? {
        guard let client = state.withLock({ $0.clients[path] }) else {
            replier.send(.error(name: DBusMethodResult.unknownObjectName, message: "no client \(path)"))
            return nil
        }
        guard client.owner == sender else {
            replier.send(.error(name: Self.accessDenied, message: "\(path) belongs to another caller"))
            return nil
        }
        return client
    }

    private enum Made {
        case existing(String)
        case made(String)
        case refused(String)
    }

    private func client(for sender: String, shared: Bool) -> DBusMethodResult {
        let made = state.withLock { state -> Made in
            if shared, let path = state.shared[sender] { return .existing(path) }
            let held = state.clients.values.filter { $0.owner == sender }.count
            guard held < clientsPerCaller else { return .refused("this caller holds \(held) clients, the most allowed") }
            state.nextClient += 1
            let path = "\(Self.root)/Client/\(state.nextClient)"
            let opening = Task { [self] in await open(sender: sender, path: path) }
            state.clients[path] = Client(path: path, owner: sender, opening: opening)
            if shared { state.shared[sender] = path }
            return .made(path)
        }
        switch made {
        case let .existing(path):
            return .reply([.objectPath(path)])
        case let .made(path):
            do {
                try objects.add(
                    path,
                    interfaces: [
                        Self.clientInterface: [
                            "Location": .objectPath("/"), "DistanceThreshold": .uint32(0), "TimeThreshold": .uint32(0),
                            "DesktopId": .string(""), "RequestedAccuracyLevel": .uint32(0), "Active": .bool(false),
                        ]
                    ], audience: sender)
            } catch {
                return .error(name: DBusMethodResult.failedName, message: "cannot export \(path): \(error)")
            }
            return .reply([.objectPath(path)])
        case let .refused(message):
            return .error(name: Self.limitsExceeded, message: message)
        }
    }

    /// The engine client of a new GeoClue client: the caller's process from the bus's credentials (the kernel's,
    /// taken when it connected), its app as a socket client's.
    private func open(sender: String, path: String) async -> ProtocolClient? {
        let identity: PeerIdentity?
        do {
            let credentials = try await bus.connectionCredentials(of: sender)
            identity = credentials.processID.flatMap { pid in
                credentials.userID.flatMap { uid in
                    PeerIdentity(credentials: PeerIdentity.Credentials(pid: Int32(bitPattern: pid), uid: uid))
                }
            }
        } catch {
            logger.warning("Cannot learn a GeoClue caller's credentials", metadata: ["error": "\(error)"])
            identity = nil
        }
        let opened = await withCheckedContinuation { (continuation: CheckedContinuation<ProtocolClient, Never>) in
            DaemonCore.identityQueue.async { [self] in
                continuation.resume(
                    returning: core.openProtocolClient(identity: identity, service: .geoclue, label: path) { [weak self] in
                        self?.engineEvent($0, path: path)
                    })
            }
        }
        // Deleted, or its caller gone, while it opened.
        if state.withLock({ $0.clients[path] == nil }) {
            core.close(opened)
            return nil
        }
        return opened
    }

    private func delete(_ path: String, by sender: String) -> DBusMethodResult {
        let removed = state.withLock { state -> Client? in
            guard let client = state.clients[path], client.owner == sender else { return nil }
            state.clients[path] = nil
            if state.shared[sender] == path { state.shared[sender] = nil }
            return client
        }
        guard let removed else {
            return .error(name: Self.accessDenied, message: "\(path) is not a client of this caller")
        }
        forget(removed)
        return .empty
    }

    /// A caller left the bus: its clients end, its agent goes.
    private func callerLeft(_ name: String) {
        let gone = state.withLock { state -> [Client] in
            let gone = state.clients.values.filter { $0.owner == name }
            for client in gone { state.clients[client.path] = nil }
            state.shared[name] = nil
            state.agents = state.agents.filter { $0.value != name }
            return gone
        }
        core.agents.removeRemote(owner: name)
        for client in gone { forget(client) }
    }

    private func forget(_ client: Client) {
        for path in [client.location, client.previousLocation].compactMap({ $0 }) where path != "/" {
            try? objects.remove(path)
        }
        try? objects.remove(client.path)
        updateInUse()
        Task { if let opened = await client.opening.value { core.close(opened) } }
    }

    func updateInUse() {
        let inUse = state.withLock { $0.clients.values.contains { $0.active } }
        try? objects.update(Self.managerPath, interface: Self.managerInterface, ["InUse": .bool(inUse)])
    }
}

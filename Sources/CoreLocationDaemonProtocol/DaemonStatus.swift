/// What `locationctl status` shows of a daemon.
public struct DaemonStatus: Codable, Hashable, Sendable {
    public struct App: Codable, Hashable, Sendable {
        enum CodingKeys: String, CodingKey {
            case app, uid, authorization, clients, omittedClients
        }

        public var app: String
        public var uid: UInt32
        public var authorization: WireAuthorization
        public var clients: [Client]
        /// Clients not listed, past the reply's bound (`DaemonStatus.listedClients`); nil when none were left out.
        public var omittedClients: Int?
        public init(
            app: String, uid: UInt32, authorization: WireAuthorization, clients: [Client], omittedClients: Int? = nil
        ) {
            self.app = app
            self.uid = uid
            self.authorization = authorization
            self.clients = clients
            self.omittedClients = omittedClients
        }
    }

    public struct Client: Codable, Hashable, Sendable {
        enum CodingKeys: String, CodingKey {
            case pid, label, services, lastDelivery
        }

        public var pid: Int32
        public var label: String
        /// Services in use: updates, significant-changes, visits, regions…
        public var services: [String]
        /// Seconds since the daemon started of the last delivery, if any.
        public var lastDelivery: Double?
        public init(pid: Int32, label: String, services: [String], lastDelivery: Double?) {
            self.pid = pid
            self.label = label
            self.services = services
            self.lastDelivery = lastDelivery
        }
    }

    public struct Source: Codable, Hashable, Sendable {
        enum CodingKeys: String, CodingKey {
            case id, name, powered, onTime, state, detail, lastFix, origin
        }

        public var id: String
        public var name: String
        public var powered: Bool
        /// Seconds the source has been powered in this daemon's life.
        public var onTime: Double
        /// What the source said last while powered: `off`, `waiting` (powered, nothing heard yet),
        /// `receiving`, `unavailable` (see `detail`: gpsd not running, device unplugged…), `finished`.
        /// Optional: added in version 1 without a version change (decision 0010).
        public var state: String?
        /// Why the source is unavailable, as it said.
        public var detail: String?
        /// Seconds since the daemon started of the source's latest fix.
        public var lastFix: Double?
        /// The device of the latest fix, for a source that gathers from several (a modem source: the modem's model
        /// and D-Bus path). Optional: added in version 1 without a version change (decision 0010).
        public var origin: String?
        public init(
            id: String, name: String, powered: Bool, onTime: Double, state: String? = nil, detail: String? = nil,
            lastFix: Double? = nil, origin: String? = nil
        ) {
            self.id = id
            self.name = name
            self.powered = powered
            self.onTime = onTime
            self.state = state
            self.detail = detail
            self.lastFix = lastFix
            self.origin = origin
        }
    }

    /// The names on the wire (every struct here spells its keys out, decision 0068).
    enum CodingKeys: String, CodingKey {
        case pid, servicesEnabled, database, apps, sources, omittedApps
    }

    /// The most apps and clients one reply lists: a frame holds 64 KiB (`DaemonProtocol.maximumFrameLength`), and
    /// a daemon serving 1 000 clients (of GeoClue, of gpsd's protocol, of one app) once answered `status` with a
    /// frame too long to send: `locationctl status` then failed with "locationd closed the connection".
    public static let listedApps = 64
    public static let listedClients = 128

    public var pid: Int32
    public var servicesEnabled: Bool
    public var database: String
    public var apps: [App]
    public var sources: [Source]
    /// Apps not listed, past `listedApps`; nil when none were left out.
    public var omittedApps: Int?

    public init(
        pid: Int32, servicesEnabled: Bool, database: String, apps: [App], sources: [Source], omittedApps: Int? = nil
    ) {
        self.pid = pid
        self.servicesEnabled = servicesEnabled
        self.database = database
        self.apps = apps
        self.sources = sources
        self.omittedApps = omittedApps
    }

    /// The status with at most `listedApps` apps and `listedClients` clients in all (the first ones, in order), and
    /// then as many as fit `bytes` once encoded (labels and app names are long enough to matter); the others are
    /// counted.
    public func bounded(bytes: Int = DaemonProtocol.maximumFrameLength - 1024) -> DaemonStatus {
        var bounded = self
        if apps.count > Self.listedApps {
            bounded.apps = Array(apps.prefix(Self.listedApps))
            bounded.omittedApps = apps.count - Self.listedApps
        }
        var room = Self.listedClients
        for index in bounded.apps.indices {
            let clients = bounded.apps[index].clients
            if clients.count > room {
                bounded.apps[index].clients = Array(clients.prefix(room))
                bounded.apps[index].omittedClients = clients.count - room
            }
            room -= bounded.apps[index].clients.count
        }
        while let size = try? DaemonProtocol.encode(bounded).count, size > bytes, let last = bounded.apps.indices.last {
            if bounded.apps[last].clients.isEmpty {
                bounded.apps.removeLast()
                bounded.omittedApps = (bounded.omittedApps ?? 0) + 1
            } else {
                bounded.apps[last].clients.removeLast()
                bounded.apps[last].omittedClients = (bounded.apps[last].omittedClients ?? 0) + 1
            }
        }
        return bounded
    }
}

/// What `locationctl status` shows of a daemon.
public struct DaemonStatus: Codable, Hashable, Sendable {
    public struct App: Codable, Hashable, Sendable {
        enum CodingKeys: String, CodingKey {
            case app, uid, authorization, clients
        }

        public var app: String
        public var uid: UInt32
        public var authorization: WireAuthorization
        public var clients: [Client]
        public init(app: String, uid: UInt32, authorization: WireAuthorization, clients: [Client]) {
            self.app = app
            self.uid = uid
            self.authorization = authorization
            self.clients = clients
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
        case pid, servicesEnabled, database, apps, sources
    }

    public var pid: Int32
    public var servicesEnabled: Bool
    public var database: String
    public var apps: [App]
    public var sources: [Source]

    public init(pid: Int32, servicesEnabled: Bool, database: String, apps: [App], sources: [Source]) {
        self.pid = pid
        self.servicesEnabled = servicesEnabled
        self.database = database
        self.apps = apps
        self.sources = sources
    }
}

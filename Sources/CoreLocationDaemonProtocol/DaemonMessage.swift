/// The daemon's answer to the hello: its version and who it takes the client to be.
public struct ServerHello: Hashable, Sendable {
    public var version: Int
    /// The app the client was grouped under (bundle identifier or executable path).
    public var app: String
    public var uid: UInt32
    public var pid: Int32
    /// `locationServicesEnabled()` at the time of the hello.
    public var servicesEnabled: Bool
    /// The app's authorization at the time of the hello.
    public var authorization: WireAuthorization
    /// A random value the client echoes (`confirmIdentity`) before Settings requests: made after the daemon read
    /// the client's executable, so a request written before that read (and then an exec) cannot carry it
    /// (decision 0011). Absent from daemons that predate it.
    public var token: String?

    public init(
        version: Int = DaemonProtocol.version, app: String, uid: UInt32, pid: Int32, servicesEnabled: Bool,
        authorization: WireAuthorization, token: String? = nil
    ) {
        self.token = token
        self.version = version
        self.app = app
        self.uid = uid
        self.pid = pid
        self.servicesEnabled = servicesEnabled
        self.authorization = authorization
    }
}

/// Daemon → client: `{"type":"hello"|"reply"|"event"|"error",…}`.
public enum DaemonMessage: Hashable, Sendable {
    case hello(ServerHello)
    case reply(id: UInt64, body: DaemonReply)
    /// Something happened. Events that must be acknowledged carry a sequence number (increasing per
    /// connection); the rest carry none.
    case event(sequence: UInt64?, body: DaemonEvent)
    /// A protocol error; when `fatal`, the daemon closes the connection after it.
    case error(DaemonError)
}

extension DaemonMessage: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case "hello":
            self = .hello(
                ServerHello(
                    version: try c.decode(Int.self, forKey: "version"), app: try c.decode(String.self, forKey: "app"),
                    uid: try c.decode(UInt32.self, forKey: "uid"), pid: try c.decode(Int32.self, forKey: "pid"),
                    servicesEnabled: try c.decode(Bool.self, forKey: "servicesEnabled"),
                    authorization: try c.decode(WireAuthorization.self, forKey: "authorization"),
                    token: try c.decodeIfPresent(String.self, forKey: "token")))
        case "reply":
            self = .reply(id: try c.decode(UInt64.self, forKey: "id"), body: try c.decode(DaemonReply.self, forKey: "body"))
        case "event":
            self = .event(
                sequence: try c.decodeIfPresent(UInt64.self, forKey: "sequence"),
                body: try c.decode(DaemonEvent.self, forKey: "body"))
        case "error":
            self = .error(
                DaemonError(
                    try c.decode(DaemonError.Code.self, forKey: "code"), try c.decode(String.self, forKey: "message"),
                    fatal: try c.decode(Bool.self, forKey: "fatal")))
        default: throw c.unknown(type, of: "message")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case let .hello(hello):
            try c.encode("hello", forKey: "type")
            try c.encode(hello.version, forKey: "version")
            try c.encode(hello.app, forKey: "app")
            try c.encode(hello.uid, forKey: "uid")
            try c.encode(hello.pid, forKey: "pid")
            try c.encode(hello.servicesEnabled, forKey: "servicesEnabled")
            try c.encode(hello.authorization, forKey: "authorization")
            try c.encodeIfPresent(hello.token, forKey: "token")
        case let .reply(id, body):
            try c.encode("reply", forKey: "type")
            try c.encode(id, forKey: "id")
            try c.encode(body, forKey: "body")
        case let .event(sequence, body):
            try c.encode("event", forKey: "type")
            try c.encodeIfPresent(sequence, forKey: "sequence")
            try c.encode(body, forKey: "body")
        case let .error(error):
            try c.encode("error", forKey: "type")
            try c.encode(error.code, forKey: "code")
            try c.encode(error.message, forKey: "message")
            try c.encode(error.fatal, forKey: "fatal")
        }
    }
}

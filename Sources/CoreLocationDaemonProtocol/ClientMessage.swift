import Foundation

/// The first message a client sends. Everything but `version` is for display only: the daemon
/// takes the client's identity from the kernel (docs/decisions/0011-locationd-threat-model.md).
public struct ClientHello: Hashable, Sendable {
    public var version: Int
    /// A name for `locationctl status` (e.g. the program's name).
    public var label: String?
    /// The client's own executable (its `/proc/self/exe`), which the daemon uses only when it cannot read the
    /// client's `/proc/PID/exe` (another user's process, without ptrace rights), and then only within the client's
    /// uid and never for Settings requests (decision 0011). Older clients leave it out.
    public var executable: String?

    public init(version: Int = DaemonProtocol.version, label: String? = nil, executable: String? = nil) {
        self.version = version
        self.label = label
        self.executable = executable
    }

    /// This process's executable, for `executable`.
    public static var ownExecutable: String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}

/// Client → daemon: `{"type":"hello","version":2,"label":…}` or `{"type":"request","id":N,"body":{…}}`.
public enum ClientMessage: Hashable, Sendable {
    case hello(ClientHello)
    /// A request; the reply carries the same id (chosen by the client, unique on its connection).
    case request(id: UInt64, body: DaemonRequest)
}

extension ClientMessage: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case "hello":
            self = .hello(
                ClientHello(
                    version: try c.decode(Int.self, forKey: "version"),
                    label: try c.decodeIfPresent(String.self, forKey: "label"),
                    executable: try c.decodeIfPresent(String.self, forKey: "executable")))
        case "request":
            self = .request(
                id: try c.decode(UInt64.self, forKey: "id"), body: try c.decode(DaemonRequest.self, forKey: "body"))
        default: throw c.unknown(type, of: "message")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case let .hello(hello):
            try c.encode("hello", forKey: "type")
            try c.encode(hello.version, forKey: "version")
            try c.encodeIfPresent(hello.label, forKey: "label")
            try c.encodeIfPresent(hello.executable, forKey: "executable")
        case let .request(id, body):
            try c.encode("request", forKey: "type")
            try c.encode(id, forKey: "id")
            try c.encode(body, forKey: "body")
        }
    }
}

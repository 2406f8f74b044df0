import Foundation

/// Where gpsd listens.
public struct GPSDEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// gpsd's IANA port.
    public static let defaultPort: UInt16 = 2947
    public static let localhost = GPSDEndpoint(host: "127.0.0.1", port: defaultPort)

    public init(host: String, port: UInt16 = GPSDEndpoint.defaultPort) {
        self.host = host
        self.port = port
    }

    public var description: String { "gpsd://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// What a connection to gpsd reports, in order: `connected` once, then `bytes` as they arrive,
/// then `closed` exactly once (also when connecting failed).
public enum GPSDTransportEvent: Sendable, Equatable {
    case connected
    case bytes([UInt8])
    case closed(reason: String)
}

/// One connection attempt and, if it succeeds, the connection.
public protocol GPSDChannel: Sendable {
    /// Sends a request line (gpsd commands are US-ASCII, at most 80 characters).
    func send(_ line: String)
    /// Closes the connection; `closed` follows unless it already came.
    func close()
}

/// Opens connections to gpsd. The real one uses POSIX sockets on a thread of its own; tests use
/// a scripted one so that reconnection runs on a `ManualScheduler` without sleeping.
public protocol GPSDTransport: Sendable {
    /// Starts connecting; never blocks. Events go to `handler` on any thread.
    func open(
        _ endpoint: GPSDEndpoint, handler: @escaping @Sendable (GPSDTransportEvent) -> Void
    ) -> any GPSDChannel
}

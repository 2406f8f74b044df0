/// A protocol error: `code`, words for people, and whether the daemon closes the connection after it.
public struct DaemonError: Codable, Hashable, Sendable, Error, CustomStringConvertible {
    public enum Code: String, Codable, Hashable, Sendable {
        case incompatibleVersion = "incompatible-version"
        case malformed
        case oversized
        case helloExpected = "hello-expected"
        case helloTimeout = "hello-timeout"
        case unknownClient = "unknown-client"
        case notPermitted = "not-permitted"
        case invalidArgument = "invalid-argument"
        case storage
        case tooSlow = "too-slow"
        /// What was asked needs something this daemon has not (a beacon scanner).
        case unavailable
    }

    /// The names on the wire.
    enum CodingKeys: String, CodingKey {
        case code, message, fatal
    }

    public var code: Code
    public var message: String
    public var fatal: Bool

    public init(_ code: Code, _ message: String, fatal: Bool = false) {
        self.code = code
        self.message = message
        self.fatal = fatal
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

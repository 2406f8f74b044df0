/// What went wrong on the bus: connecting, a call the peer refused or never answered, a malformed value.
///
/// Match by code (`catch let error as DBusCallError where error.code == .remote`) and, for errors a peer sent,
/// by D-Bus error `name` (`org.freedesktop.DBus.Error.ServiceUnknown`, `org.bluez.Error.NotReady`…).
public struct DBusCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case connect, remote, timeout, disconnected, invalidArgument, outOfMemory }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The bus could not be reached or refused us.
        public static let connect = Code(.connect)
        /// The peer answered with an error (see `name`).
        public static let remote = Code(.remote)
        /// No reply within the call's timeout (`org.freedesktop.DBus.Error.NoReply`).
        public static let timeout = Code(.timeout)
        /// The connection is closed.
        public static let disconnected = Code(.disconnected)
        /// A value cannot be sent (bad object path, signature, a string holding NUL…).
        public static let invalidArgument = Code(.invalidArgument)
        public static let outOfMemory = Code(.outOfMemory)
        public var description: String { value.rawValue }
    }

    public var code: Code
    /// The D-Bus error name, when the bus or a peer gave one.
    public var name: String?
    public var message: String

    public init(_ code: Code, name: String? = nil, _ message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    public var description: String {
        if let name { return "D-Bus \(code): \(name): \(message)" }
        return "D-Bus \(code): \(message)"
    }

    /// The peer is not on the bus (`ServiceUnknown`, `NameHasNoOwner`): a service not installed or not running.
    public var isServiceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}

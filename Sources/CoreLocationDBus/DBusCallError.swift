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
        /// A value cannot be sent (bad object path, signature, a string holding NUL, beyond the protocol's limits…).
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

    /// There is no bus to connect to: no socket at its address, or nothing listening there (`FileNotFound`,
    /// `NoServer`) — on a machine, the D-Bus daemon (Debian package `dbus`) is not installed or not running.
    public var isBusMissing: Bool {
        code == .connect
            && (name == "org.freedesktop.DBus.Error.FileNotFound" || name == "org.freedesktop.DBus.Error.NoServer")
    }

    /// The peer is not on the bus (`ServiceUnknown`, `NameHasNoOwner`): a service not installed or not running.
    public var isServiceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// What a user must install for a feature that failed with this error, in words, or nil when the error is not
    /// a missing part: with no bus, "needs the system D-Bus (Debian package dbus) and BlueZ (Debian package bluez):
    /// no D-Bus socket at …"; with the bus but not the service, "needs BlueZ (Debian package bluez) running on the
    /// system bus (org.bluez is not on it)". Callers put their feature's name in front ("beacons: needs …").
    public func missingPart(service: String, package: String, busName: String? = nil) -> String? {
        if isBusMissing {
            return "needs the system D-Bus (Debian package dbus) and \(service) (Debian package \(package)): \(message)"
        }
        if isServiceMissing {
            let name = busName.map { " (\($0) is not on it)" } ?? ""
            return "needs \(service) (Debian package \(package)) running on the system bus\(name)"
        }
        return nil
    }
}

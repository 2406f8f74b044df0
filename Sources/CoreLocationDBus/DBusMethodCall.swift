/// A method call another peer made to one of our exported objects (`DBusClient.export`).
public struct DBusMethodCall: Sendable, Hashable {
    /// The caller's unique name (`:1.42`).
    public var sender: String?
    public var path: String
    /// Optional in D-Bus: a call may name only the member.
    public var interface: String?
    public var member: String
    public var arguments: [DBusValue]
    /// False when the caller set NO_REPLY_EXPECTED: whatever the handler answers is not sent.
    public var expectsReply: Bool

    public init(
        sender: String? = nil, path: String, interface: String?, member: String, arguments: [DBusValue] = [],
        expectsReply: Bool = true
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.expectsReply = expectsReply
    }

    init?(message: DBusMessage) {
        guard message.kind == .methodCall, let path = message.path, let member = message.member else { return nil }
        self.init(
            sender: message.sender, path: path, interface: message.interface, member: member, arguments: message.body,
            expectsReply: !message.flags.contains(.noReplyExpected))
    }

    /// `interface.member` (or the member alone), for messages and logs.
    public var name: String { interface.map { "\($0).\(member)" } ?? member }
}

/// What an exported object answers: the reply's arguments, or a D-Bus error (name and message).
public enum DBusMethodResult: Sendable, Hashable {
    case reply([DBusValue])
    case error(name: String, message: String)

    public static let unknownMethodName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObjectName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterfaceName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownPropertyName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnlyName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let invalidArgsName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let failedName = "org.freedesktop.DBus.Error.Failed"

    /// An empty reply (a `void` method).
    public static let empty = DBusMethodResult.reply([])

    /// `org.freedesktop.DBus.Error.UnknownMethod` naming the call.
    public static func unknownMethod(_ call: DBusMethodCall) -> DBusMethodResult {
        .error(name: unknownMethodName, message: "no method \(call.name) at \(call.path)")
    }
}

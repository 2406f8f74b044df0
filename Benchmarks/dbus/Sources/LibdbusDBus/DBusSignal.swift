import CCoreLocationDBus

/// A signal as it arrived: who sent it, from which object, and its arguments.
public struct DBusSignal: Sendable, Hashable {
    /// The sender's unique name (`:1.42`); signals never carry the well-known name.
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String?, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    init?(message: OpaquePointer) {
        guard dbus_message_get_type(message) == DBusTypeCode.signal,
            let path = dbus_message_get_path(message),
            let interface = dbus_message_get_interface(message),
            let member = dbus_message_get_member(message)
        else { return nil }
        self.sender = dbus_message_get_sender(message).map { String(cString: $0) }
        self.path = String(cString: path)
        self.interface = String(cString: interface)
        self.member = String(cString: member)
        self.arguments = DBusMessageReader.arguments(of: message)
    }
}

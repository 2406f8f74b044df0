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

    init?(message: DBusMessage) {
        guard message.kind == .signal, let path = message.path, let interface = message.interface,
            let member = message.member
        else { return nil }
        self.init(sender: message.sender, path: path, interface: interface, member: member, arguments: message.body)
    }
}

/// Which signals a subscription wants: a D-Bus match rule (sent to the bus with `AddMatch`) and the same test
/// applied to each message here, so two subscriptions on one connection never see each other's signals.
///
/// `sender` may be a well-known name (`org.freedesktop.NetworkManager`): the bus routes only that name's
/// signals to us, but signals carry the unique name, so locally a well-known `sender` is not checked again; a
/// unique `sender` (`:1.42`) is. Two subscriptions that differ only by well-known sender would see each other's
/// signals — no user here does that (each service has its own interfaces).
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: String?
    /// Matches an object path and every path below it (`path_namespace`).
    public var pathNamespace: String?
    /// Matches the first argument, a string (`arg0`), e.g. an interface name in PropertiesChanged.
    public var arg0: String?

    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil, path: String? = nil,
        pathNamespace: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arg0 = arg0
    }

    /// The rule's text for `org.freedesktop.DBus.AddMatch`.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// The local half of the test.
    func matches(_ signal: DBusSignal) -> Bool {
        if let interface, interface != signal.interface { return false }
        if let member, member != signal.member { return false }
        if let path, path != signal.path { return false }
        if let pathNamespace, pathNamespace != "/",
            signal.path != pathNamespace, !signal.path.hasPrefix(pathNamespace + "/")
        {
            return false
        }
        if let arg0, signal.arguments.first?.string != arg0 { return false }
        if let sender, sender.hasPrefix(":"), signal.sender != sender { return false }
        return true
    }
}

extension DBusClient {
    /// Emits a signal from one of our objects: to every connection whose match rules take it (`destination` nil,
    /// a broadcast), or to one connection (a unique or well-known name; the bus delivers it there whatever that
    /// connection's match rules say — the way a service answers one client, as GeoClue's `LocationUpdated` does).
    ///
    /// - Throws: `DBusCallError` — `.invalidArgument` for an invalid name or value, `.disconnected`.
    public func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue] = [], destination: String? = nil
    ) throws {
        try Self.checkSignalNames(path: path, interface: interface, member: member)
        if let destination, !DBusNames.isBusName(destination) {
            throw DBusCallError(.invalidArgument, "'\(destination)' is not a bus name")
        }
        try connection.send(
            .signal(path: path, interface: interface, member: member, destination: destination, body: arguments))
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`: the new values (each sent in
    /// a variant) and the names of properties whose value changed without being sent.
    public func emitPropertiesChanged(
        path: String, interface: String, changed: [String: DBusValue], invalidated: [String] = [],
        destination: String? = nil
    ) throws {
        guard DBusNames.isInterface(interface) else {
            throw DBusCallError(.invalidArgument, "'\(interface)' is not an interface name")
        }
        try emitSignal(
            path: path, interface: Self.propertiesInterface, member: "PropertiesChanged",
            arguments: [.string(interface), .dictionary(changed), .strings(invalidated)], destination: destination)
    }
}

import CCoreLocationDBus

// Not from git history: the libdbus layer had no way to emit a signal, which the benchmark's signal round trip
// needs. The smallest libdbus form of it (dbus_message_new_signal, the layer's own writer, dbus_connection_send).
extension DBusClient {
    public func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws {
        guard let message = dbus_message_new_signal(path, interface, member) else {
            throw DBusCallError(.outOfMemory, "creating a signal")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageWriter.append(arguments, to: message)
        guard dbus_connection_send(connection, message, nil) != 0 else {
            throw DBusCallError(.outOfMemory, "sending \(interface).\(member)")
        }
    }
}

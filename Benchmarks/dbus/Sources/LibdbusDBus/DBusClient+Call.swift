import CCoreLocationDBus
import Synchronization

extension DBusClient {
    /// Calls a method and returns the reply's arguments.
    ///
    /// - Throws: `DBusCallError` — `.remote` with the peer's error name, `.timeout` when no reply came within
    ///   `timeout`, `.disconnected`, `.invalidArgument` for a name, path or value libdbus would refuse.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> [DBusValue] {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try call(
                    destination: destination, path: path, interface: interface, member: member,
                    arguments: arguments, timeout: timeout
                ) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Calls a method; `onReply` gets the reply's arguments or the error (as the async `call` throws them) on
    /// the connection's own thread, never on the cooperative pool, so a caller that must answer synchronously
    /// (Apple's class methods such as `isRangingAvailable()`) can wait for it on a semaphore from any thread.
    ///
    /// - Throws: `DBusCallError` at once when the call cannot be sent (`.invalidArgument`, `.outOfMemory`,
    ///   `.disconnected`); then `onReply` is never called.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = DBusClient.defaultTimeout,
        onReply: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void
    ) throws {
        guard dbus_validate_bus_name(destination, nil) != 0 else {
            throw DBusCallError(.invalidArgument, "'\(destination)' is not a bus name")
        }
        guard dbus_validate_path(path, nil) != 0 else {
            throw DBusCallError(.invalidArgument, "'\(path)' is not an object path")
        }
        guard dbus_validate_interface(interface, nil) != 0 else {
            throw DBusCallError(.invalidArgument, "'\(interface)' is not an interface name")
        }
        guard dbus_validate_member(member, nil) != 0 else {
            throw DBusCallError(.invalidArgument, "'\(member)' is not a member name")
        }
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusCallError(.outOfMemory, "creating a method call")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageWriter.append(arguments, to: message)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000
            + timeout.components.attoseconds / 1_000_000_000_000_000)
        var pendingCall: OpaquePointer?
        guard dbus_connection_send_with_reply(connection, message, &pendingCall, max(1, milliseconds)) != 0 else {
            throw DBusCallError(.outOfMemory, "sending \(interface).\(member)")
        }
        guard let pendingCall else {
            throw DBusCallError(.disconnected, "\(interface).\(member): the connection is closed")
        }
        let what = "\(interface).\(member)"
        let reply = DBusPendingReply(pendingCall, what: what, onReply: onReply)
        let context = Unmanaged.passRetained(reply).toOpaque()
        let installed = dbus_pending_call_set_notify(
            pendingCall,
            { _, data in
                guard let data else { return }
                Unmanaged<DBusPendingReply>.fromOpaque(data).takeUnretainedValue().complete()
            },
            context,
            { data in
                guard let data else { return }
                Unmanaged<DBusPendingReply>.fromOpaque(data).release()
            }
        )
        if installed == 0 {
            Unmanaged<DBusPendingReply>.fromOpaque(context).release()
            reply.fail(DBusCallError(.outOfMemory, "waiting for \(what)"))
        } else if dbus_pending_call_get_completed(pendingCall) != 0 {
            // The reply came before the notification was installed.
            reply.complete()
        }
    }

    /// Sends a method call without waiting for (or asking for) a reply.
    public func send(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) throws {
        guard dbus_validate_bus_name(destination, nil) != 0, dbus_validate_path(path, nil) != 0,
            dbus_validate_interface(interface, nil) != 0, dbus_validate_member(member, nil) != 0
        else { throw DBusCallError(.invalidArgument, "\(destination) \(path) \(interface).\(member)") }
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusCallError(.outOfMemory, "creating a method call")
        }
        defer { dbus_message_unref(message) }
        dbus_message_set_no_reply(message, 1)
        try DBusMessageWriter.append(arguments, to: message)
        guard dbus_connection_send(connection, message, nil) != 0 else {
            throw DBusCallError(.outOfMemory, "sending \(interface).\(member)")
        }
    }
}

/// One call's reply: completed once, from the notification or from the caller when the reply was already there.
final class DBusPendingReply: Sendable {
    private struct State {
        // libdbus's DBusPendingCall (we own one reference until completion); nil once completed.
        var call: DBusHandle?
        var onReply: (@Sendable (Result<[DBusValue], any Error>) -> Void)?
    }

    private let state: Mutex<State>
    private let what: String

    init(_ call: OpaquePointer, what: String, onReply: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void) {
        state = Mutex(State(call: DBusHandle(call), onReply: onReply))
        self.what = what
    }

    func fail(_ error: DBusCallError) {
        let (call, onReply) = state.withLock { state in
            defer { state.call = nil; state.onReply = nil }
            return (state.call, state.onReply)
        }
        if let call { dbus_pending_call_unref(call.pointer) }
        onReply?(.failure(error))
    }

    func complete() {
        let taken: (DBusHandle, @Sendable (Result<[DBusValue], any Error>) -> Void)? = state.withLock { state in
            guard let call = state.call, let onReply = state.onReply else { return nil }
            state.call = nil
            state.onReply = nil
            return (call, onReply)
        }
        guard let (call, onReply) = taken else { return }
        let message = dbus_pending_call_steal_reply(call.pointer)
        dbus_pending_call_unref(call.pointer)
        guard let message else {
            onReply(.failure(DBusCallError(.disconnected, "\(what): no reply")))
            return
        }
        defer { dbus_message_unref(message) }
        let arguments = DBusMessageReader.arguments(of: message)
        guard dbus_message_get_type(message) == DBusTypeCode.error else {
            onReply(.success(arguments))
            return
        }
        let name = dbus_message_get_error_name(message).map { String(cString: $0) } ?? "unknown"
        let text = arguments.first?.string ?? name
        let code: DBusCallError.Code
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout": code = .timeout
        case "org.freedesktop.DBus.Error.Disconnected": code = .disconnected
        default: code = .remote
        }
        onReply(.failure(DBusCallError(code, name: name, "\(what): \(text)")))
    }
}

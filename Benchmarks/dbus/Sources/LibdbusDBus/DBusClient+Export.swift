import CCoreLocationDBus
import Synchronization

extension DBusClient {
    /// Answers the method calls other peers make to `path` — and with `subtree`, to every path below it — with
    /// `handler`. The handler runs on the loop thread while the connection dispatches (no polling), in arrival
    /// order, so like a signal handler it must return quickly and must not wait for a reply to a call of its
    /// own; its answer is sent unless the caller asked for no reply. A reply whose values cannot be encoded is
    /// sent as `org.freedesktop.DBus.Error.Failed`, an invalid error name as `Failed` too.
    ///
    /// libdbus answers `org.freedesktop.DBus.Peer` itself; nothing else is implied (see `export(_:methods:)` for
    /// ObjectManager and Properties). The connection keeps `handler` until the export is cancelled or the
    /// client released, so a handler that captures its owner strongly makes a cycle that `cancel()` breaks.
    ///
    /// - Throws: `DBusCallError(.invalidArgument)` for an invalid path, or one already exported on this
    ///   connection (`name` `org.freedesktop.DBus.Error.ObjectPathInUse`).
    public func export(
        path: String, subtree: Bool = false, _ handler: @escaping @Sendable (DBusMethodCall) -> DBusMethodResult
    ) throws -> DBusExport {
        guard dbus_validate_path(path, nil) != 0 else {
            throw DBusCallError(.invalidArgument, "'\(path)' is not an object path")
        }
        let exported = DBusExportedHandler(handler)
        let context = Unmanaged.passRetained(exported).toOpaque()
        var vtable = DBusObjectPathVTable()
        vtable.unregister_function = { _, data in
            guard let data else { return }
            Unmanaged<DBusExportedHandler>.fromOpaque(data).release()
        }
        vtable.message_function = { connection, message, data in
            guard let connection, let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusExportedHandler>.fromOpaque(data).takeUnretainedValue().handle(message, on: connection)
        }
        var error = CCoreLocationDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        // libdbus copies the vtable's function pointers; `context` is released by unregister_function.
        let registered =
            subtree
            ? dbus_connection_try_register_fallback(connection, path, &vtable, context, &error)
            : dbus_connection_try_register_object_path(connection, path, &vtable, context, &error)
        guard registered != 0 else {
            Unmanaged<DBusExportedHandler>.fromOpaque(context).release()
            throw Self.error(from: error, code: .invalidArgument, fallback: "exporting \(path)")
        }
        // The client is captured weakly (an export must not keep a connection alive); the connection itself
        // stays allocated while the client lives (see `connection`), so unregistering after close() is safe.
        return DBusExport { [weak self] in
            guard let self else { return }
            _ = dbus_connection_unregister_object_path(self.connection, path)
        }
    }
}

/// One export's handler, owned by libdbus's object tree (retained at registration, released by its
/// unregister function).
final class DBusExportedHandler: Sendable {
    private let handler: @Sendable (DBusMethodCall) -> DBusMethodResult

    init(_ handler: @escaping @Sendable (DBusMethodCall) -> DBusMethodResult) { self.handler = handler }

    func handle(_ message: OpaquePointer, on connection: OpaquePointer) -> DBusHandlerResult {
        guard let call = DBusMethodCall(message: message) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let result = handler(call)
        guard call.expectsReply, let reply = Self.reply(to: message, with: result) else {
            return DBUS_HANDLER_RESULT_HANDLED
        }
        defer { dbus_message_unref(reply) }
        // Out of memory here means no reply: the caller's own timeout answers it.
        _ = dbus_connection_send(connection, reply, nil)
        return DBUS_HANDLER_RESULT_HANDLED
    }

    static func reply(to message: OpaquePointer, with result: DBusMethodResult) -> OpaquePointer? {
        switch result {
        case .reply(let values):
            guard let reply = dbus_message_new_method_return(message) else { return nil }
            do {
                try DBusMessageWriter.append(values, to: reply)
                return reply
            } catch {
                dbus_message_unref(reply)
                return errorReply(to: message, name: DBusMethodResult.failedName, "the reply cannot be sent: \(error)")
            }
        case .error(let name, let text):
            // libdbus aborts on an invalid error name; a handler's mistake becomes a plain Failed.
            let valid = dbus_validate_error_name(name, nil) != 0
            return errorReply(to: message, name: valid ? name : DBusMethodResult.failedName, text)
        }
    }

    private static func errorReply(to message: OpaquePointer, name: String, _ text: String) -> OpaquePointer? {
        // A NUL in the text would end the C string early: harmless, so not checked.
        dbus_message_new_error(message, name, text)
    }
}

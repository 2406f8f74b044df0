import Foundation

/// Method calls other peers make to us: `org.freedesktop.DBus.Peer` on any path (as libdbus answers it), else the
/// export at the path or the nearest subtree export above it, else `UnknownMethod`.
extension DBusConnection {
    static let peerInterface = "org.freedesktop.DBus.Peer"

    /// Registers `handler` for `path` (and below it, with `subtree`); returns the export's id for `unexport`.
    func export(
        path: String, subtree: Bool, _ handler: @escaping @Sendable (DBusMethodCall, DBusReplier) -> Void
    ) throws -> UInt64 {
        try state.withLock { state throws(DBusCallError) -> UInt64 in
            guard state.exports[path] == nil else {
                throw DBusCallError(
                    .invalidArgument, name: "org.freedesktop.DBus.Error.ObjectPathInUse",
                    "an object is already exported at \(path)")
            }
            defer { state.nextExportID += 1 }
            state.exports[path] = Export(id: state.nextExportID, subtree: subtree, handler: handler)
            return state.nextExportID
        }
    }

    func unexport(path: String, id: UInt64) {
        let removed = state.withLock { state -> Export? in
            guard state.exports[path]?.id == id else { return nil }
            return state.exports.removeValue(forKey: path)
        }
        // Released outside the lock: a handler's captures may deinit things that call back into us.
        _ = removed
    }

    /// The handler for `path`: its own export, or the closest subtree export above it.
    private func handler(for path: String) -> (@Sendable (DBusMethodCall, DBusReplier) -> Void)? {
        state.withLock { state in
            if let export = state.exports[path] { return export.handler }
            var parent = path
            while parent != "/" {
                if let slash = parent.lastIndex(of: "/") {
                    parent = slash == parent.startIndex ? "/" : String(parent[..<slash])
                } else {
                    return nil
                }
                if let export = state.exports[parent], export.subtree { return export.handler }
            }
            return nil
        }
    }

    /// Answers one incoming call on the loop thread (the handler may keep the replier and answer later).
    func answer(_ message: DBusMessage) {
        guard let call = DBusMethodCall(message: message) else { return }
        let replier = DBusReplier(connection: self, call: message)
        if call.interface == Self.peerInterface {
            replier.send(peerAnswer(call))
        } else if let handler = handler(for: call.path) {
            handler(call, replier)
        } else {
            // libdbus's words for a call nobody exported a handler for.
            let signature = message.body.map(\.signature).joined()
            replier.send(
                .error(
                    name: DBusMethodResult.unknownMethodName,
                    message: "Method \"\(call.member)\" with signature \"\(signature)\" on interface "
                        + "\"\(call.interface ?? "(null)")\" doesn't exist"))
        }
    }

    private func peerAnswer(_ call: DBusMethodCall) -> DBusMethodResult {
        switch call.member {
        case "Ping": return .empty
        case "GetMachineId":
            for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
                if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                    return .reply([.string(text.trimmingCharacters(in: .whitespacesAndNewlines))])
                }
            }
            return .error(name: DBusMethodResult.failedName, message: "no machine id on this machine")
        default:
            return .unknownMethod(call)
        }
    }

    /// Sends `result` as the reply to `call`. A reply whose values cannot be encoded goes as `Failed`, an invalid
    /// error name as `Failed` too (as the libdbus layer did). Failing to send (closed) is silent: the caller's own
    /// timeout or disconnection answers it.
    func reply(to call: DBusMessage, with result: DBusMethodResult) {
        switch result {
        case .reply(let values):
            do {
                try send(.methodReturn(to: call, body: values))
            } catch let error as DBusCallError where error.code == .invalidArgument {
                _ = try? send(
                    .error(
                        to: call, name: DBusMethodResult.failedName, text: "the reply cannot be sent: \(error.message)")
                )
            } catch {}
        case .error(let name, let text):
            let valid = DBusNames.isErrorName(name)
            _ = try? send(.error(to: call, name: valid ? name : DBusMethodResult.failedName, text: text))
        }
    }
}

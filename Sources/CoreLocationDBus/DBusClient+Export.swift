extension DBusClient {
    /// Answers the method calls other peers make to `path` — and with `subtree`, to every path below it that has
    /// no export of its own — with `handler`. The handler runs on the connection's thread as calls arrive (no
    /// polling), in arrival order, so like a signal handler it must return quickly and must not wait for a reply
    /// to a call of its own; its answer is sent unless the caller asked for no reply. A reply whose values cannot
    /// be encoded is sent as `org.freedesktop.DBus.Error.Failed`, an invalid error name as `Failed` too.
    ///
    /// `org.freedesktop.DBus.Peer` (Ping, GetMachineId) is answered by the connection on every path, as libdbus
    /// did; nothing else is implied (see `export(_:methods:)` for ObjectManager and Properties). The connection
    /// keeps `handler` until the export is cancelled, the client released or the connection closed, so a handler
    /// that captures its owner strongly makes a cycle that `cancel()` breaks.
    ///
    /// - Throws: `DBusCallError(.invalidArgument)` for an invalid path, or one already exported on this
    ///   connection (`name` `org.freedesktop.DBus.Error.ObjectPathInUse`).
    public func export(
        path: String, subtree: Bool = false, _ handler: @escaping @Sendable (DBusMethodCall) -> DBusMethodResult
    ) throws -> DBusExport {
        try export(path: path, subtree: subtree) { call, replier in replier.send(handler(call)) }
    }

    /// As `export(path:subtree:_:)`, but the handler answers through `replier` when it is ready — at once, or from
    /// a task after awaiting what the answer needs (`connectionUnixProcessID(of: call.sender)`, the engine). The
    /// handler itself still runs on the connection's thread and must return quickly.
    public func export(
        path: String, subtree: Bool = false,
        answering handler: @escaping @Sendable (DBusMethodCall, DBusReplier) -> Void
    ) throws -> DBusExport {
        guard DBusNames.isObjectPath(path) else {
            throw DBusCallError(.invalidArgument, "'\(path)' is not an object path")
        }
        let id = try connection.export(path: path, subtree: subtree, handler)
        // The connection is captured weakly: an export must not keep a connection alive.
        return DBusExport { [weak connection] in connection?.unexport(path: path, id: id) }
    }
}

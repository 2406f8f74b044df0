extension DBusClient {
    /// Calls a method and returns the reply's arguments.
    ///
    /// - Throws: `DBusCallError` — `.remote` with the peer's error name, `.timeout` when no reply came within
    ///   `timeout`, `.disconnected`, `.invalidArgument` for a name, path or value the wire cannot carry.
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
    /// - Throws: `DBusCallError` at once when the call cannot be sent (`.invalidArgument`, `.disconnected`);
    ///   then `onReply` is never called.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = DBusClient.defaultTimeout,
        onReply: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void
    ) throws {
        try Self.checkCall(destination: destination, path: path, interface: interface, member: member)
        // At least a millisecond, at most libdbus's longest (2^31 − 1 ms, about 24.8 days).
        let bounded = min(max(timeout, .milliseconds(1)), .milliseconds(Int(Int32.max)))
        let pending = DBusConnection.PendingCall(
            what: "\(interface).\(member)", deadline: ContinuousClock.now + bounded, onReply: onReply)
        try connection.send(
            .methodCall(destination: destination, path: path, interface: interface, member: member, body: arguments),
            reply: pending)
    }

    /// Sends a method call without waiting for (or asking for) a reply.
    public func send(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) throws {
        try Self.checkCall(destination: destination, path: path, interface: interface, member: member)
        var message = DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, body: arguments)
        message.flags = [.noReplyExpected]
        try connection.send(message)
    }

    static func checkCall(destination: String, path: String, interface: String, member: String) throws {
        guard DBusNames.isBusName(destination) else {
            throw DBusCallError(.invalidArgument, "'\(destination)' is not a bus name")
        }
        try checkSignalNames(path: path, interface: interface, member: member)
    }

    static func checkSignalNames(path: String, interface: String, member: String) throws {
        guard DBusNames.isObjectPath(path) else {
            throw DBusCallError(.invalidArgument, "'\(path)' is not an object path")
        }
        guard DBusNames.isInterface(interface) else {
            throw DBusCallError(.invalidArgument, "'\(interface)' is not an interface name")
        }
        guard DBusNames.isMember(member) else {
            throw DBusCallError(.invalidArgument, "'\(member)' is not a member name")
        }
    }
}

import Synchronization

/// A live signal subscription; `cancel()` (idempotent) stops delivery and removes the bus match.
public typealias DBusSubscription = DBusCancellation

/// An exported path; `cancel()` (idempotent, also on release) unregisters it, after which calls to it get
/// `org.freedesktop.DBus.Error.UnknownMethod`.
public typealias DBusExport = DBusCancellation

/// Something on the connection that lasts until `cancel()` (idempotent) or release undoes it.
public final class DBusCancellation: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    init(_ cancel: @escaping @Sendable () -> Void) { cancellation = Mutex(cancel) }

    public func cancel() {
        let cancel = cancellation.withLock { value in
            defer { value = nil }
            return value
        }
        cancel?()
    }

    deinit { cancel() }
}

extension DBusClient {
    /// Delivers the signals matching `rule` to `handler` (on the loop thread, in order) until the subscription
    /// is cancelled or released. The bus match is in place when this returns.
    public func subscribe(
        _ rule: DBusMatchRule, _ handler: @escaping @Sendable (DBusSignal) -> Void
    ) async throws -> DBusSubscription {
        let id = registry.add(rule, handler)
        do {
            _ = try await call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", member: "AddMatch", arguments: [.string(rule.description)]
            )
        } catch {
            _ = registry.remove(id)
            throw error
        }
        let registry = self.registry
        // The client is captured weakly: a subscription must not keep a closed connection alive.
        return DBusSubscription { [weak self] in
            guard let last = registry.remove(id), let self, self.isConnected else { return }
            try? self.send(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", member: "RemoveMatch", arguments: [.string(last.description)]
            )
        }
    }

    /// The signals matching `rule` as an async sequence (buffered without limit; finish by cancelling the task
    /// that iterates, which cancels the subscription).
    public func signals(_ rule: DBusMatchRule) async throws -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusSignal.self)
        let subscription = try await subscribe(rule) { continuation.yield($0) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}

import Synchronization

/// The connection's subscribers; the connection hands every incoming signal here (on its thread).
final class DBusSubscriptionRegistry: Sendable {
    private struct Entry {
        var rule: DBusMatchRule
        var handler: @Sendable (DBusSignal) -> Void
    }

    private struct State {
        var next: UInt64 = 1
        var entries: [UInt64: Entry] = [:]
        var disconnected = false
        var disconnectHandlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    init() {}

    var isDisconnected: Bool { state.withLock { $0.disconnected } }

    func add(_ rule: DBusMatchRule, _ handler: @escaping @Sendable (DBusSignal) -> Void) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.entries[state.next] = Entry(rule: rule, handler: handler)
            return state.next
        }
    }

    /// Removes a subscription and returns its rule (the bus counts matches: one RemoveMatch per AddMatch).
    func remove(_ id: UInt64) -> DBusMatchRule? {
        state.withLock { $0.entries.removeValue(forKey: id)?.rule }
    }

    func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            if !state.disconnected { state.disconnectHandlers.append(handler) }
            return state.disconnected
        }
        if already { handler() }
    }

    /// The bus went away: tells each disconnect handler once.
    func markDisconnected() {
        let handlers = state.withLock { state in
            state.disconnected = true
            defer { state.disconnectHandlers = [] }
            return state.disconnectHandlers
        }
        for handler in handlers { handler() }
    }

    func deliver(_ signal: DBusSignal) {
        let handlers = state.withLock { state in
            state.entries.sorted { $0.key < $1.key }.filter { $0.value.rule.matches(signal) }.map(\.value.handler)
        }
        for handler in handlers { handler(signal) }
    }
}

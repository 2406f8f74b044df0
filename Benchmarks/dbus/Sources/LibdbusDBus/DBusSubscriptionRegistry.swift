import CCoreLocationDBus
import Logging
import Synchronization

/// The connection's subscribers; the libdbus filter hands every incoming message here (on the loop thread).
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
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

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

    func deliver(_ message: OpaquePointer) {
        guard let signal = DBusSignal(message: message) else { return }
        if signal.interface == "org.freedesktop.DBus.Local", signal.member == "Disconnected" {
            let handlers = state.withLock { state in
                state.disconnected = true
                defer { state.disconnectHandlers = [] }
                return state.disconnectHandlers
            }
            logger.info("D-Bus connection lost")
            for handler in handlers { handler() }
            return
        }
        let handlers = state.withLock { state in
            state.entries.sorted { $0.key < $1.key }.filter { $0.value.rule.matches(signal) }.map(\.value.handler)
        }
        for handler in handlers { handler(signal) }
    }
}

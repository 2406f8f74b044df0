import Synchronization

/// The answer to one incoming method call, to be sent once — at once from the handler, or later from a task
/// (a service that must ask the bus who the caller is, or ask its engine, before it answers).
///
/// `send` after the first is ignored, as is any answer to a caller that asked for none. A replier released
/// without an answer sends `org.freedesktop.DBus.Error.Failed`, so a forgotten call fails at once instead of
/// leaving the caller to its timeout.
public final class DBusReplier: Sendable {
    private struct State {
        var connection: DBusConnection?
        var call: DBusMessage?
    }

    private let state: Mutex<State>

    init(connection: DBusConnection, call: DBusMessage) {
        let expectsReply = !call.flags.contains(.noReplyExpected)
        state = Mutex(State(connection: expectsReply ? connection : nil, call: expectsReply ? call : nil))
    }

    /// True once an answer went (or none is wanted).
    public var isAnswered: Bool { state.withLock { $0.call == nil } }

    /// Sends `result` as the reply (the first time only). A reply whose values cannot be encoded goes as
    /// `org.freedesktop.DBus.Error.Failed`, an invalid error name as `Failed` too.
    public func send(_ result: DBusMethodResult) {
        let taken = state.withLock { state -> (DBusConnection, DBusMessage)? in
            defer { state = State() }
            guard let connection = state.connection, let call = state.call else { return nil }
            return (connection, call)
        }
        guard let (connection, call) = taken else { return }
        connection.reply(to: call, with: result)
    }

    deinit {
        send(.error(name: DBusMethodResult.failedName, message: "the service dropped the call without an answer"))
    }
}

import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One authenticated bus connection and the thread that serves it (docs/decisions/0058).
///
/// Sending happens on the caller's thread: the message is marshalled outside the lock, numbered and written
/// under it (straight to the socket when nothing is queued, as libdbus does), so a call costs no thread hop.
/// Everything that arrives is handled on the connection's own thread (`run`), blocked in `poll(2)` on the
/// socket and a wake-up pipe: replies complete their calls, signals go to the subscription registry, method
/// calls to the exported objects — in arrival order, with no polling interval. The same loop fails calls whose
/// timeout passed, so a silent peer is answered with `.timeout` at the deadline.
final class DBusConnection: Sendable {
    struct PendingCall: Sendable {
        var what: String
        var deadline: ContinuousClock.Instant
        var onReply: @Sendable (Result<[DBusValue], any Error>) -> Void
    }

    struct Export: Sendable {
        var id: UInt64
        var subtree: Bool
        var handler: @Sendable (DBusMethodCall, DBusReplier) -> Void
    }

    struct State {
        /// Bytes not yet written, from `outputStart`.
        var output: [UInt8] = []
        var outputStart = 0
        /// 1 went to Hello.
        var lastSerial: UInt32 = 1
        var pending: [UInt32: PendingCall] = [:]
        var exports: [String: Export] = [:]
        var nextExportID: UInt64 = 1
        /// False once closed or lost: nothing more is sent, the socket is closed.
        var open = true
        var stopRequested = false

        mutating func nextSerial() -> UInt32 {
            lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
            return lastSerial
        }
    }

    let state = Mutex(State())
    let registry: DBusSubscriptionRegistry
    let logger: Logger
    let uniqueName: String
    let address: DBusAddress
    private let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// What arrived with the Hello reply, read by `run` before anything else.
    private let initialReader: Mutex<DBusFrameReader?>

    init(_ established: DBusHandshake.Established, registry: DBusSubscriptionRegistry, logger: Logger) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw DBusCallError(.connect, "cannot make the connection's wake-up pipe (errno \(errno))")
        }
        for end in fds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        fd = established.fd
        uniqueName = established.uniqueName
        address = established.address
        initialReader = Mutex(established.reader)
        self.registry = registry
        self.logger = logger
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
        // The socket is closed by `run` when it ends; a connection whose thread never started closes it here.
        state.withLock { state in
            if state.open { Glibc.close(fd) }
        }
    }

    var isOpen: Bool { state.withLock { $0.open && !$0.stopRequested } }

    func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    /// Ends the loop: pending calls fail with `.disconnected`, the socket is closed. From any thread.
    func stop() {
        state.withLock { $0.stopRequested = true }
        wake()
    }

    // MARK: Sending

    /// Numbers and sends `message`; with `reply`, registers it (before a byte is written, so the reply cannot
    /// overtake it). Returns the serial.
    ///
    /// - Throws: `.invalidArgument` for a value or name that cannot go on the wire, `.disconnected` when closed.
    @discardableResult
    func send(_ message: DBusMessage, reply: PendingCall? = nil) throws -> UInt32 {
        let body: DBusMessage.EncodedBody
        do {
            body = try message.encodeBody()
        } catch let error as DBusWireError {
            throw DBusCallError(.invalidArgument, error.message)
        }
        return try state.withLock { state throws(DBusCallError) -> UInt32 in
            guard state.open, !state.stopRequested else {
                throw DBusCallError(.disconnected, "\(reply?.what ?? "sending"): the connection is closed")
            }
            let serial = state.nextSerial()
            let bytes: [UInt8]
            do {
                bytes = try message.encode(serial: serial, body: body)
            } catch {
                throw DBusCallError(.invalidArgument, (error as? DBusWireError)?.message ?? "\(error)")
            }
            if let reply { state.pending[serial] = reply }
            enqueue(bytes, &state)
            return serial
        }
    }

    /// Writes at once when nothing waits before it; what the socket does not take waits for the loop.
    private func enqueue(_ bytes: [UInt8], _ state: inout State) {
        var rest = bytes[...]
        if state.outputStart == state.output.count {
            state.output.removeAll(keepingCapacity: true)
            state.outputStart = 0
            let written = bytes.withUnsafeBytes { DBusSocket.write(fd, $0) } ?? 0
            rest = bytes[written...]
            if rest.isEmpty { return }
        }
        state.output.append(contentsOf: rest)
        wake()
    }

    /// Writes queued bytes (loop thread).
    private func flush() -> Bool {
        state.withLock { state in
            guard state.open, state.outputStart < state.output.count else { return true }
            guard let written = state.output[state.outputStart...].withUnsafeBytes({ DBusSocket.write(fd, $0) }) else {
                return false
            }
            state.outputStart += written
            if state.outputStart == state.output.count {
                state.output.removeAll(keepingCapacity: true)
                state.outputStart = 0
            } else if state.outputStart > 1 << 20 {
                state.output.removeFirst(state.outputStart)
                state.outputStart = 0
            }
            return true
        }
    }

    // MARK: The loop

    /// Runs until `stop()` or the bus goes away; then closes the socket, fails what is pending with
    /// `.disconnected`, and (for a lost bus) tells the registry's disconnect handlers.
    func run() {
        var reader = initialReader.withLock { stored in
            defer { stored = nil }
            return stored ?? DBusFrameReader()
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { scratch.deallocate() }
        var lost: String?
        while true {
            if let reason = dispatchAvailable(&reader) {
                lost = reason
                break
            }
            let (stopped, wantsWrite, deadline) = state.withLock { state in
                (
                    state.stopRequested, state.outputStart < state.output.count,
                    state.pending.values.map(\.deadline).min()
                )
            }
            if stopped { break }
            var fds = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
            ]
            let wait = deadline.map { DBusSocket.milliseconds(ContinuousClock.now.duration(to: $0)) } ?? -1
            if poll(&fds, 2, wait) < 0 && errno != EINTR {
                lost = "poll failed (errno \(errno))"
                break
            }
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeRead, &drain, drain.count) > 0 {}
            }
            let events = fds[1].revents
            if events & Int16(POLLOUT) != 0, !flush() {
                lost = "the bus closed the connection"
                break
            }
            if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0,
                DBusSocket.read(fd, scratch: scratch, into: &reader) == nil
            {
                // Whatever complete messages came before the end are still handled.
                lost = dispatchAvailable(&reader) ?? "the bus closed the connection"
                break
            }
            expireTimeouts()
        }
        finish(lost: lost)
    }

    /// Handles every complete message the reader holds; returns why the connection must end when the bytes are
    /// not D-Bus (the stream cannot be resynchronised; libdbus drops the connection too).
    private func dispatchAvailable(_ reader: inout DBusFrameReader) -> String? {
        while true {
            let message: DBusMessage
            do {
                guard let next = try reader.next() else { return nil }
                message = next
            } catch {
                return "the bus sent a malformed message (\(error))"
            }
            dispatch(message)
            if state.withLock({ $0.stopRequested }) { return nil }
        }
    }

    private func dispatch(_ message: DBusMessage) {
        switch message.kind {
        case .methodReturn, .error:
            guard let serial = message.replySerial,
                let pending = state.withLock({ $0.pending.removeValue(forKey: serial) })
            else { return }
            pending.onReply(Self.result(of: message, for: pending.what))
        case .signal:
            guard let signal = DBusSignal(message: message) else { return }
            registry.deliver(signal)
        case .methodCall:
            answer(message)
        }
    }

    /// A reply's arguments, or its error as `DBusCallError` (the name kept; NoReply/Timeout → `.timeout`).
    static func result(of message: DBusMessage, for what: String) -> Result<[DBusValue], any Error> {
        guard message.kind == .error else { return .success(message.body) }
        let name = message.errorName ?? "unknown"
        let text = message.body.first?.string ?? name
        let code: DBusCallError.Code
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout": code = .timeout
        case "org.freedesktop.DBus.Error.Disconnected": code = .disconnected
        default: code = .remote
        }
        return .failure(DBusCallError(code, name: name, "\(what): \(text)"))
    }

    private func expireTimeouts() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [PendingCall] in
            let serials = state.pending.filter { $0.value.deadline <= now }.keys.sorted()
            return serials.compactMap { state.pending.removeValue(forKey: $0) }
        }
        for call in expired {
            call.onReply(
                .failure(
                    DBusCallError(
                        .timeout, name: "org.freedesktop.DBus.Error.NoReply", "\(call.what): no reply in time")))
        }
    }

    private func finish(lost: String?) {
        let (pending, exports) = state.withLock { state -> ([PendingCall], [String: Export]) in
            if state.open { Glibc.close(fd) }
            state.open = false
            state.output = []
            state.outputStart = 0
            defer {
                state.pending = [:]
                state.exports = [:]
            }
            return (state.pending.keys.sorted().compactMap { state.pending[$0] }, state.exports)
        }
        // Dropping the handlers breaks any cycle through an owner they captured; outside the lock, since an
        // owner's deinit may call back into the connection.
        withExtendedLifetime(exports) {}
        let reason = lost ?? "the connection is closed"
        for call in pending {
            call.onReply(
                .failure(
                    DBusCallError(
                        .disconnected, name: "org.freedesktop.DBus.Error.Disconnected", "\(call.what): \(reason)")))
        }
        if let lost {
            logger.info("D-Bus connection lost", metadata: ["reason": "\(lost)", "address": "\(address)"])
            registry.markDisconnected()
        }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One blocking connection to locationd: the hello, framed writes, and a reader thread that hands
/// every message to `onMessage` (replies also wake whoever waits on them). Used by the library's
/// daemon link, `locationctl` and the tests.
public final class DaemonConnection: Sendable {
    public enum Failure: Error, CustomStringConvertible, Sendable {
        case unreachable(UnixSocket.Failure)
        case refused(DaemonError)
        case closed
        case timedOut
        case malformed(String)

        public var description: String {
            switch self {
            case let .unreachable(failure): "locationd is not reachable (\(failure))"
            case let .refused(error): "locationd refused the connection (\(error))"
            case .closed: "locationd closed the connection"
            case .timedOut: "locationd did not answer in time"
            case let .malformed(text): "locationd sent something unreadable (\(text))"
            }
        }
    }

    private struct State {
        var fd: Int32
        var isClosed = false
        var nextRequest: UInt64 = 0
        var waiters: [UInt64: @Sendable (DaemonReply?) -> Void] = [:]
    }

    public let hello: ServerHello
    private let state: Mutex<State>
    private let writeLock = Mutex(())

    /// Bytes read together with the hello.
    private let initialDecoder: FrameDecoder

    private init(fd: Int32, hello: ServerHello, decoder: FrameDecoder) {
        self.hello = hello
        initialDecoder = decoder
        state = Mutex(State(fd: fd))
    }

    /// Connects and exchanges hellos; fails within `timeout` when the daemon does not answer.
    public static func connect(path: String, label: String?, timeout: Double = 2) throws(Failure) -> DaemonConnection {
        let fd: Int32
        do { fd = try UnixSocket.connect(path: path) } catch { throw .unreachable(error) }
        let hello: [UInt8]
        do {
            hello = try DaemonProtocol.frame(ClientMessage.hello(ClientHello(label: label, executable: ClientHello.ownExecutable)))
        } catch {
            UnixSocket.shutdownAndClose(fd)
            throw .malformed("\(error)")
        }
        guard UnixSocket.writeAll(fd, hello) else {
            UnixSocket.shutdownAndClose(fd)
            throw .closed
        }
        UnixSocket.setReceiveTimeout(fd, seconds: timeout)
        var decoder = FrameDecoder()
        while true {
            let frame: [UInt8]?
            do { frame = try decoder.next() } catch {
                UnixSocket.shutdownAndClose(fd)
                throw .malformed("\(error)")
            }
            if let frame {
                let message: DaemonMessage
                do { message = try DaemonProtocol.decode(DaemonMessage.self, from: frame) } catch {
                    UnixSocket.shutdownAndClose(fd)
                    if let version = DaemonProtocol.version1(of: frame) {
                        throw .refused(
                            DaemonError(
                                .incompatibleVersion,
                                "locationd speaks protocol version \(version); this client speaks version \(DaemonProtocol.version)",
                                fatal: true))
                    }
                    throw .malformed("\(error)")
                }
                switch message {
                case let .hello(server) where server.version != DaemonProtocol.version:
                    UnixSocket.shutdownAndClose(fd)
                    throw .refused(
                        DaemonError(
                            .incompatibleVersion,
                            "locationd speaks protocol version \(server.version); this client speaks version \(DaemonProtocol.version)",
                            fatal: true))
                case let .hello(server):
                    UnixSocket.setReceiveTimeout(fd, seconds: 0)
                    let connection = DaemonConnection(fd: fd, hello: server, decoder: decoder)
                    // Written only now, after the hello came: the proof that this process, as the daemon read it,
                    // sends what follows (decision 0011, connect-then-exec).
                    if let token = server.token { connection.send(.confirmIdentity(token: token)) }
                    return connection
                case let .error(error):
                    UnixSocket.shutdownAndClose(fd)
                    throw .refused(error)
                default:
                    UnixSocket.shutdownAndClose(fd)
                    throw .malformed("expected a hello")
                }
            }
            let bytes = UnixSocket.readSome(fd)
            if bytes.isEmpty {
                let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                UnixSocket.shutdownAndClose(fd)
                throw timedOut ? .timedOut : .closed
            }
            decoder.append(bytes)
        }
    }

    /// Starts the reader thread. `onMessage` hears every event and error; nil once the connection closed.
    public func startReading(_ onMessage: @escaping @Sendable (DaemonMessage?) -> Void) {
        let fd = state.withLock { $0.fd }
        let initial = initialDecoder
        let thread = Thread { [self] in
            var decoder = initial
            reading: while true {
                while true {
                    let frame: [UInt8]?
                    do { frame = try decoder.next() } catch { break reading }
                    guard let frame else { break }
                    // A message this client does not know (an addition of a newer daemon within
                    // version 2) is skipped, not fatal: the framing stays in step.
                    guard let message = try? DaemonProtocol.decode(DaemonMessage.self, from: frame) else { continue }
                    if case let .reply(id, body) = message {
                        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                        waiter?(body)
                    } else {
                        onMessage(message)
                    }
                }
                let bytes = UnixSocket.readSome(fd)
                if bytes.isEmpty { break }
                decoder.append(bytes)
            }
            let waiters = state.withLock { state -> [@Sendable (DaemonReply?) -> Void] in
                state.isClosed = true
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter(nil) }
            onMessage(nil)
        }
        thread.name = "corelocation.daemon-reader"
        thread.start()
    }

    /// Sends a request; `reply` hears the answer (nil if the connection closed first).
    public func send(_ body: DaemonRequest, reply: (@Sendable (DaemonReply?) -> Void)? = nil) {
        let (id, fd, closed) = state.withLock { state -> (UInt64, Int32, Bool) in
            state.nextRequest += 1
            if let reply, !state.isClosed { state.waiters[state.nextRequest] = reply }
            return (state.nextRequest, state.fd, state.isClosed)
        }
        if closed {
            reply?(nil)
            return
        }
        guard let bytes = try? DaemonProtocol.frame(ClientMessage.request(id: id, body: body)) else {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?(nil)
            return
        }
        let written = writeLock.withLock { _ in UnixSocket.writeAll(fd, bytes) }
        if !written {
            // The reader thread notices the close and answers the waiters.
            _ = shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// Sends a request and waits for its reply (for command-line use; needs `startReading` first).
    public func request(_ body: DaemonRequest, timeout: Double = 5) throws(Failure) -> DaemonReply {
        let box = Mutex<DaemonReply??>(nil)
        let done = DispatchSemaphore(value: 0)
        send(body) { reply in
            box.withLock { $0 = .some(reply) }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { throw .timedOut }
        guard let reply = box.withLock({ $0 }) ?? nil else { throw .closed }
        return reply
    }

    public func close() {
        let fd = state.withLock { $0.fd }
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit {
        let fd = state.withLock { $0.fd }
        _ = Glibc.close(fd)
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The NMEA side of the test: a loopback TCP server that gpsd reads (`tcp://127.0.0.1:PORT`). Every
/// connection gets every epoch written after it connected; a pump thread writes epochs at a pace.
public final class NMEAFeed: Sendable {
    public let port: UInt16
    private let listenFD: Int32
    private struct State {
        var clients: [Int32] = []
        var accepted = 0
        var closed = false
        var pumping = false
        var sentAt: [Int: Double] = [:]
    }
    private let state = Mutex(State())
    private let acceptDone = Mutex(false)

    public init() throws {
        (listenFD, port) = try LoopbackSocket.listen()
        let fd = listenFD
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    break
                }
                var one: Int32 = 1
                _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let keep = state.withLock { state -> Bool in
                    guard !state.closed else { return false }
                    state.clients.append(client)
                    state.accepted += 1
                    return true
                }
                if !keep { Glibc.close(client) }
            }
            acceptDone.withLock { $0 = true }
        }
        thread.start()
    }

    /// How many connections gpsd (or anyone) opened so far.
    public var acceptedCount: Int { state.withLock { $0.accepted } }

    /// Writes sentences (CR LF added) to every connected client; drops clients that went away.
    public func send(_ sentences: [String]) {
        let bytes = Array(sentences.map { $0 + "\r\n" }.joined().utf8)
        state.withLock { state in
            state.clients = state.clients.filter { fd in
                let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written == bytes.count { return true }
                Glibc.close(fd)
                return false
            }
        }
    }

    /// Sends `epoch(k)` for k = first, first+1, … every `interval` seconds until `stopPumping()`,
    /// calling `sent(k, monotonicSeconds)` after each write.
    public func startPumping(from first: Int = 0, interval: Double, epoch: @escaping @Sendable (Int) -> [String]?) {
        state.withLock { $0.pumping = true }
        let thread = Thread { [self] in
            var k = first
            while state.withLock({ $0.pumping && !$0.closed }), let sentences = epoch(k) {
                send(sentences)
                k += 1
                usleep(UInt32(interval * 1_000_000))
            }
        }
        thread.start()
    }

    public func stopPumping() { state.withLock { $0.pumping = false } }

    /// Stops the pump, closes every connection and the listener, and waits for the accept thread.
    public func close() {
        let clients = state.withLock { state -> [Int32] in
            state.closed = true
            state.pumping = false
            defer { state.clients = [] }
            return state.clients
        }
        for fd in clients { Glibc.close(fd) }
        shutdown(listenFD, Int32(SHUT_RDWR))
        let deadline = Date().addingTimeInterval(2)
        while !acceptDone.withLock({ $0 }) && Date() < deadline { usleep(1_000) }
        Glibc.close(listenFD)
    }
}

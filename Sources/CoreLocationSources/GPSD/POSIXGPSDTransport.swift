import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// gpsd over a TCP socket: each channel has a thread that connects (with a timeout), then reads
/// until the peer closes or `close()` shuts the socket down.
public struct POSIXGPSDTransport: GPSDTransport {
    /// How long a connection attempt may take, seconds.
    public var connectTimeout: Double

    public init(connectTimeout: Double = 1) {
        self.connectTimeout = connectTimeout
    }

    public func open(
        _ endpoint: GPSDEndpoint, handler: @escaping @Sendable (GPSDTransportEvent) -> Void
    ) -> any GPSDChannel {
        let channel = SocketChannel()
        let timeout = connectTimeout
        NamedThread.start("cl-gpsd") { channel.run(endpoint: endpoint, timeout: timeout, handler: handler) }
        return channel
    }
}

/// The socket of one channel. Only the reader thread closes the descriptor, under `state`'s lock;
/// `close()` merely shuts it down (waking the blocked `read`), so a descriptor number is never
/// used after it was closed and possibly reused.
final class SocketChannel: GPSDChannel {
    private struct State {
        var fd: Int32 = -1
        var closeRequested = false
    }

    private let state = Mutex(State())

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        state.withLock { state in
            guard state.fd >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.send(state.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    func close() {
        state.withLock { state in
            state.closeRequested = true
            if state.fd >= 0 { _ = shutdown(state.fd, Int32(SHUT_RDWR)) }
        }
    }

    func run(endpoint: GPSDEndpoint, timeout: Double, handler: @Sendable (GPSDTransportEvent) -> Void) {
        let fd: Int32
        do {
            fd = try SocketConnector.connect(host: endpoint.host, port: endpoint.port, timeout: timeout)
        } catch {
            handler(.closed(reason: "\(error)"))
            return
        }
        let proceed = state.withLock { state -> Bool in
            if state.closeRequested { return false }
            state.fd = fd
            return true
        }
        guard proceed else {
            Glibc.close(fd)
            handler(.closed(reason: "closed"))
            return
        }
        handler(.connected)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var reason = "gpsd closed the connection"
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                handler(.bytes(Array(buffer[0..<count])))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                if count < 0 { reason = "read failed: \(String(cString: strerror(errno)))" }
                break
            }
        }
        state.withLock { state in
            if state.closeRequested { reason = "closed" }
            Glibc.close(state.fd)
            state.fd = -1
        }
        handler(.closed(reason: reason))
    }
}

/// A connect failure, with the address and the system's reason.
public struct GPSDConnectError: Error, CustomStringConvertible, Sendable {
    public var host: String
    public var port: UInt16
    public var reason: String
    /// "connection refused at 127.0.0.1:2947", as `cgps` puts it.
    public var description: String {
        let what = reason.prefix(1).lowercased() + reason.dropFirst()
        return "\(what) at \(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

enum SocketConnector {
    /// A connected, blocking TCP socket, trying each address of `host` in turn, each with `timeout`.
    static func connect(host: String, port: UInt16, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw GPSDConnectError(host: host, port: port, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastReason = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 {
                lastReason = String(cString: strerror(errno))
                continue
            }
            if let reason = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout) {
                lastReason = reason
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        throw GPSDConnectError(host: host, port: port, reason: lastReason)
    }

    /// Non-blocking connect + poll, then back to blocking; nil on success, else the reason.
    private static func connect(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, timeout: Double
    ) -> String? {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready == 0 { return "timed out after \(timeout) s" }
        if ready < 0 { return String(cString: strerror(errno)) }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        return error == 0 ? nil : String(cString: strerror(error))
    }
}

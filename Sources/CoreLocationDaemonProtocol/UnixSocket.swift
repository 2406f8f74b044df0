#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Small helpers over AF_UNIX stream sockets for the blocking side (the library's client,
/// `locationctl`, tests). The daemon's side is on swift-nio.
public enum UnixSocket {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var operation: String
        public var errno: Int32
        public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
    }

    /// A connected socket to `path`, or the failure (ENOENT: no socket; ECONNREFUSED: nobody listens).
    public static func connect(path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(operation: "socket", errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            close(fd)
            throw Failure(operation: "connect \(path)", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "connect \(path)", errno: code)
        }
        return fd
    }

    /// Writes all of `bytes`; false when the peer is gone.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Reads what is there (blocking); empty at end of stream or on error.
    public static func readSome(_ fd: Int32, max: Int = 65_536) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, max, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return [] }
            return Array(buffer[0..<count])
        }
    }

    /// Sets a receive timeout (0 clears it).
    public static func setReceiveTimeout(_ fd: Int32, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    public static func shutdownAndClose(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
        _ = close(fd)
    }
}

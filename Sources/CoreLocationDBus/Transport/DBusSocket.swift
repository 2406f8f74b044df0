#if canImport(Glibc)
    import Glibc
#endif

/// A connected Unix stream socket to a bus, and the few system calls the connection makes on it. Writes use
/// `MSG_NOSIGNAL`: a bus that went away must not kill the process with SIGPIPE.
enum DBusSocket {
    static let fileNotFoundName = "org.freedesktop.DBus.Error.FileNotFound"
    static let noServerName = "org.freedesktop.DBus.Error.NoServer"
    static let accessDeniedName = "org.freedesktop.DBus.Error.AccessDenied"

    /// Connects to `address` (blocking; a Unix socket connects at once or fails), then makes the socket
    /// non-blocking and close-on-exec.
    static func connect(_ address: DBusAddress) throws -> Int32 {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        let name: [UInt8]
        var length: Int
        switch address.endpoint {
        case .path(let path):
            name = Array(path.utf8)
            guard name.count < capacity else {
                throw DBusCallError(.connect, name: DBusAddress.badAddressName, "the socket path \(path) is too long")
            }
            length = name.count + 1
        case .abstract(let abstract):
            // Linux's abstract namespace: a NUL, then the name, its length given by the address length.
            name = [0] + Array(abstract.utf8)
            guard name.count <= capacity else {
                throw DBusCallError(
                    .connect, name: DBusAddress.badAddressName, "the abstract name \(abstract) is too long")
            }
            length = name.count
        case .unsupported(let reason):
            throw DBusCallError(.connect, name: DBusAddress.badAddressName, reason)
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in name.enumerated() { raw[index] = byte }
        }
        length += MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DBusCallError(.connect, "cannot make a socket for \(address) (errno \(errno))") }
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(length)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw connectError(code, address)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// The error a failed `connect` means, in words (a missing socket is the usual case: no bus daemon here).
    static func connectError(_ code: Int32, _ address: DBusAddress) -> DBusCallError {
        switch code {
        case ENOENT:
            DBusCallError(.connect, name: fileNotFoundName, "no D-Bus socket at \(address) (no bus daemon running)")
        case ECONNREFUSED:
            DBusCallError(.connect, name: noServerName, "nothing listens at \(address) (the bus daemon is not running)")
        case EACCES, EPERM:
            DBusCallError(.connect, name: accessDeniedName, "no permission to connect to \(address)")
        case ENOTDIR, ENOTSOCK:
            DBusCallError(.connect, name: fileNotFoundName, "\(address) is not a socket")
        default:
            DBusCallError(.connect, "cannot connect to \(address) (errno \(code))")
        }
    }

    /// Writes what it can without blocking; returns the bytes written (0 when the socket is full), or nil when
    /// the peer is gone or the socket failed.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        while true {
            let written = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if written >= 0 { return written }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return nil
            }
        }
    }

    /// Reads what is there through `scratch` into `reader`; returns the byte count, 0 when nothing is ready, nil
    /// at the end of the stream or on an error.
    static func read(_ fd: Int32, scratch: UnsafeMutableRawBufferPointer, into reader: inout DBusFrameReader) -> Int? {
        var total = 0
        while true {
            let count = recv(fd, scratch.baseAddress, scratch.count, 0)
            if count > 0 {
                reader.append(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                total += count
                if count < scratch.count { return total }
                continue
            }
            if count == 0 { return total > 0 ? total : nil }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return total
            default: return total > 0 ? total : nil
            }
        }
    }

    /// Waits until `fd` is ready for `events` or `deadline` passes; false on time-out.
    static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let result = poll(&entry, 1, milliseconds(left))
            if result > 0 { return true }
            if result < 0 && errno != EINTR { return true }
        }
    }

    /// A duration as poll's timeout: whole milliseconds, rounded up so a wait never ends early.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

import Foundation
import ServiceLifecycle
import Logging
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own accept loop on a listening stream socket (its own Unix socket, and each of the gpsd front door's
/// Unix and TCP sockets: decision 0099), so that it knows each connection's descriptor (issue 37, item 6). NIO does
/// not hand out its descriptors, and the daemon found each connection's among all of its own by a scan of
/// `/proc/self/fd` (one `getsockopt` per open descriptor) at every hello, on the event loop: 6 000 held connections
/// cut hello throughput from 3 087/s to 54/s. Here the thread that accepts knows the number, and hands
/// the socket to NIO (`ClientBootstrap.withConnectedSocket`), which owns and closes it from then on; the daemon
/// duplicates it at the hello (`DirectSocket.duplicate(_:cookie:)`), on the event loop while the channel is open —
/// so the number is still that socket's — and checks the copy's cookie all the same.
///
/// One thread, blocked in `poll` on the listening socket and a pipe that `stop()` writes to. (A `shutdown` of the
/// listening socket would wake `accept` too, but when systemd passed it that would also stop systemd's own copy.)
final class Acceptor: Sendable {
    /// An accepted connection: its descriptor, now NIO's to close.
    typealias Connect = @Sendable (_ descriptor: Int32) -> Void

    private let listening: Int32
    private let wake: (read: Int32, write: Int32)
    private let stopped = Mutex(false)
    private let name: String
    private let logger: Logger

    /// Takes ownership of `listening` (a bound, listening stream socket of any family): closed when the loop ends,
    /// or at once when this throws. `name` names the thread.
    init(listening: Int32, name: String = "locationd-accept", logger: Logger) throws(ListeningSocket.Failure) {
        // A socket pair as the pipe (Glibc's `pipe2` is not visible to Swift).
        var pipeEnds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pipeEnds) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listening)
            throw .cannotPrepare("a socket pair", reason)
        }
        let flags = fcntl(listening, F_GETFL)
        guard flags >= 0, fcntl(listening, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let reason = String(cString: strerror(errno))
            close(pipeEnds[0])
            close(pipeEnds[1])
            close(listening)
            throw .cannotPrepare("the listening socket", reason)
        }
        self.listening = listening
        self.wake = (pipeEnds[0], pipeEnds[1])
        self.name = name
        self.logger = logger
    }

    /// Starts accepting on a thread of its own; `connect` is called on it for each connection.
    func start(_ connect: @escaping Connect) {
        let thread = Thread { [self] in
            self.loop(connect)
        }
        thread.name = name
        thread.start()
    }

    /// Ends the loop (at most once); it closes the listening socket and the pipe's read end.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
        close(wake.write)
    }

    private func loop(_ connect: Connect) {
        defer {
            close(listening)
            close(wake.read)
        }
        while true {
            var fds = [
                pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                logger.error("Cannot wait for connections", metadata: ["error": "\(String(cString: strerror(errno)))"])
                return
            }
            if fds[1].revents != 0 { return }
            guard acceptAll(connect) else {
                // Out of descriptors (or memory): the socket stays readable, so wait a little (or for `stop`)
                // before trying again rather than spin; connections wait in the backlog meanwhile.
                var pause = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
                if poll(&pause, 1, 100) > 0 { return }
                continue
            }
        }
    }

    /// Accepts until none waits; false when accepting must pause (no descriptor or memory left).
    private func acceptAll(_ connect: Connect) -> Bool {
        while true {
            let fd = Self.accept(listening)
            if fd >= 0 {
                connect(fd)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return true
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                logger.warning("Cannot accept a connection", metadata: ["error": "\(String(cString: strerror(errno)))"])
                return false
            default:
                logger.warning("Cannot accept a connection", metadata: ["error": "\(String(cString: strerror(errno)))"])
                return true
            }
        }
    }
}

extension Acceptor {
    private typealias Accept4 = @convention(c) (
        Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
    ) -> Int32

    /// glibc's `accept4`, declared by its headers only for `_GNU_SOURCE`, which Swift's Glibc module does not
    /// define: looked up by name, as `ChildProcess` does for `posix_spawn_file_actions_addclosefrom_np`.
    private static let accept4: Accept4? = {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(address, to: Accept4.self)
    }()

    /// A connection, close-on-exec and non-blocking from the start (`accept4`): the launcher starts apps from
    /// other threads, and a descriptor without the flag for an instant could be inherited by one. Without
    /// `accept4` (not on any glibc since 2.10), `accept` and the flags set at once after.
    fileprivate static func accept(_ listening: Int32) -> Int32 {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        if let accept4 { return accept4(listening, nil, nil, flags) }
        let fd = Glibc.accept(listening, nil, nil)
        guard fd >= 0 else { return fd }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }
}

extension ListeningSocket {
    /// A stream socket bound to `path` and listening (backlog 256, as NIO's bootstrap had it).
    static func bind(path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotPrepare(path, String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw .cannotPrepare(path, "the path is too long for a socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotPrepare(path, reason)
        }
        return fd
    }
}

extension Acceptor {
    /// How an accepted socket is handed to NIO (`ClientBootstrap.withConnectedSocket`), on the daemon's socket and
    /// the gpsd front door's alike: read only when the handler asks (`autoRead` off), and a write buffer whose
    /// high-water mark tells a client that does not read.
    static func bootstrap(group: any EventLoopGroup) -> ClientBootstrap {
        ClientBootstrap(group: group)
            .channelOption(.autoRead, value: false)
            .channelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 128 * 1024))
    }
}

extension ListeningSocket {
    /// A TCP socket bound to `host` (a numeric address, or a name resolved to its first address, as NIO's
    /// `ServerBootstrap.bind(host:port:)` did) and `port`, listening (backlog 256, `SO_REUSEADDR`, as the bootstrap
    /// had).
    static func bind(host: String, port: Int) throws(Failure) -> Int32 {
        let label = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found, let address = first.pointee.ai_addr else {
            if let found { freeaddrinfo(found) }
            throw .cannotPrepare(label, resolved == 0 ? "no address" : String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotPrepare(label, String(cString: strerror(errno))) }
        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0,
            Glibc.bind(fd, address, first.pointee.ai_addrlen) == 0, listen(fd, 256) == 0
        else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotPrepare(label, reason)
        }
        return fd
    }
}

/// Runs until SIGTERM: then stops accepting (and removes the socket file when we bound it).
struct AcceptorService: Service {
    let acceptor: Acceptor
    let socketPath: String?
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("Shutting down")
        acceptor.stop()
        if let socketPath { unlink(socketPath) }
    }
}

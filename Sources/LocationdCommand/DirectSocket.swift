import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own descriptor of a connection's socket, so that a frame is written by the thread that
/// made it (the source's reader, delivering a fix) with one `send`, without waking the event loop
/// (decision 0042). NIO does not hand out its descriptors: the daemon's connections, on its own socket and on the
/// gpsd front door's, are accepted by the daemon (`Acceptor`; decisions 0098, 0099), which knows the number and
/// hands the socket to NIO. The socket is duplicated and the copy's cookie (`SO_COOKIE`, unique for the life of the
/// system) checked: the duplicate is ours, closed only by us
/// (`Peer.closed`), so a write can never reach another connection that reused a number NIO closed.
enum DirectSocket {
    /// A connection's socket as the acceptor knew it: NIO's descriptor and the socket's cookie.
    struct Accepted: Sendable {
        var descriptor: Int32
        var cookie: UInt64
    }

    /// A duplicate (close-on-exec) of an accepted socket, or nil when `descriptor` is no longer that socket.
    /// One `fcntl` and two `getsockopt`s, whatever the number of open descriptors (issue 37, item 6: the scan of
    /// `/proc/self/fd` it replaced cost one `getsockopt` per open descriptor, on the event loop, at every hello). Called on the
    /// channel's event loop while the channel is open, when NIO cannot have closed the number; the cookie is
    /// checked all the same.
    static func duplicate(_ accepted: Accepted) -> Int32? {
        guard cookie(of: accepted.descriptor) == accepted.cookie else { return nil }
        let copy = fcntl(accepted.descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        if cookie(of: copy) == accepted.cookie { return copy }
        close(copy)
        return nil
    }

    /// `SO_COOKIE` on Linux.
    static let cookieOption: Int32 = 57

    /// The socket cookie of a channel's socket (on its event loop), nil when it cannot be read.
    static func cookie(of channel: any Channel) -> EventLoopFuture<UInt64?> {
        socketOption(cookieOption, of: channel)
    }

    /// A `SOL_SOCKET` option of a channel's socket, read on its event loop; nil when the channel has no
    /// socket or the option cannot be read.
    static func socketOption<Value: Sendable>(_ name: Int32, of channel: any Channel) -> EventLoopFuture<Value?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<Value> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(name))
        return future.map { Optional($0) }.recover { _ in nil }
    }

    /// Descriptors whose cookie was read since the process began: the work of finding a socket, counted by
    /// tests (the scan of `/proc/self/fd` this replaced read one per open descriptor, the accepted path reads two).
    static let cookiesRead = Atomic<Int>(0)

    static func cookie(of fd: Int32) -> UInt64? {
        cookiesRead.add(1, ordering: .relaxed)
        var value: UInt64 = 0
        var length = socklen_t(MemoryLayout<UInt64>.size)
        guard getsockopt(fd, SOL_SOCKET, cookieOption, &value, &length) == 0 else { return nil }
        return value
    }

    /// What a non-blocking `send` of `frame` did.
    enum Outcome {
        /// All of it went into the socket.
        case sent
        /// The socket took `written` bytes (maybe 0): the rest must wait until it drains.
        case partial(written: Int)
        /// The connection is gone (the loop will see it too).
        case broken
    }

    static func send(_ fd: Int32, _ frame: ByteBuffer) -> Outcome {
        let total = frame.readableBytes
        var written = 0
        while written < total {
            let count = frame.withUnsafeReadableBytes { bytes in
                Glibc.send(fd, bytes.baseAddress.map { $0 + written }, total - written, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if count > 0 {
                written += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .partial(written: written) }
            return .broken
        }
        return .sent
    }
}

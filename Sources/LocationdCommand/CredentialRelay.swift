import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Settings connections, read with the sender of every byte checked (issue 37, item 11: fork, then exec; decision
/// 0100). A connection whose executable is the Settings one (`DaemonCore.settingsExecutables`) may be held by a
/// process other than the one that connected: it connected, forked, and exec'd `locationctl`, while its child kept
/// the socket. Only the sender of each message tells them apart, and NIO reads with `read(2)`, which drops it. So
/// the daemon reads such a connection itself: `SO_PASSPIDFD` on the client's socket makes the kernel attach the
/// writer's pidfd (`SCM_PIDFD`) to what it writes, and a stream read never returns bytes of two writers together.
/// Bytes go on to NIO (through a socket pair whose other end NIO has, so the pipeline is the same as any
/// connection's) only when their writer is the process that connected; bytes of any other writer end the connection.
///
/// Bytes that carry no pidfd were written before `SO_PASSPIDFD` was set, right after accept (a byte written before
/// accept carries one too): before the daemon's hello with its token existed, so no Settings request among them can
/// count (the token rule, decision 0011); once bytes with a pidfd came, bytes without one end the connection.
///
/// One thread for every such connection (they are few: `locationctl` commands and the user's agent), in `poll`.
final class CredentialRelay: Sendable {
    /// `SO_PASSPIDFD` (Linux 6.5), `SCM_PIDFD` and `SCM_RIGHTS` on Linux.
    static let passPidfdOption: Int32 = 76
    static let pidfdMessage: Int32 = 4
    static let rightsMessage: Int32 = 1
    /// `MSG_CMSG_CLOEXEC`: a descriptor a client sends is close-on-exec from the start (a launcher thread may spawn).
    static let closeOnExecMessages: Int32 = 0x4000_0000
    /// pidfs (Linux 6.9): one inode per process, so two pidfds are of one process exactly when their inodes are one.
    static let pidfsMagic = 0x5049_4446
    /// Bytes held each way before the relay stops reading that side (the kernel's buffers then fill, the writer waits).
    static let bufferLimit = 256 * 1024

    /// One relayed connection. Only the relay's thread touches it once it is in `links`.
    struct Link: Sendable {
        /// The client's socket (`SO_PASSPIDFD` set), and the relay's end of the pair whose other end NIO has.
        var client: Int32
        var pair: Int32
        /// A pidfd of the process that connected (`SO_PEERPIDFD`), and its pid.
        var connector: Int32
        var pid: Int32
        var toPair: [UInt8] = []
        var toClient: [UInt8] = []
        /// The client closed (or failed): nothing more is read from it or written to it.
        var clientDone = false
        /// NIO closed its end: what it wrote last goes to the client as far as its socket takes it, and the link ends.
        var pairDone = false
        /// Bytes with a pidfd have come: bytes without one end the connection from now on.
        var credentialed = false
    }

    /// What `relay` did with a connection.
    enum Outcome: Sendable {
        /// NIO is to have this end of the pair; the relay owns the client's socket and the pidfd from now on.
        case relayed(Int32)
        /// The kernel attaches no pidfd to messages (before Linux 6.5): the caller still owns both.
        case unsupported
        /// No socket pair could be made (out of descriptors): the caller still owns both.
        case failed(String)
    }

    private struct Control {
        var pending: [Link] = []
        var started = false
        var stopped = false
    }

    private let control = Mutex(Control())
    private let wake: (read: Int32, write: Int32)
    private let logger: Logger

    init(logger: Logger) throws(ListeningSocket.Failure) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw .cannotPrepare("a socket pair", String(cString: strerror(errno)))
        }
        wake = (ends[0], ends[1])
        self.logger = logger
    }

    /// Relays `client` (accepted, non-blocking), whose peer is the process of the pidfd `connector` and `pid`. The
    /// thread starts with the first connection.
    func relay(_ client: Int32, connector: Int32, pid: Int32) -> Outcome {
        var one: Int32 = 1
        let length = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(client, SOL_SOCKET, Self.passPidfdOption, &one, length) == 0 else {
            return errno == ENOPROTOOPT || errno == EINVAL ? .unsupported : .failed(String(cString: strerror(errno)))
        }
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return .failed(String(cString: strerror(errno))) }
        let admitted = control.withLock { control -> Bool in
            guard !control.stopped else { return false }
            control.pending.append(Link(client: client, pair: ends[1], connector: connector, pid: pid))
            if !control.started {
                control.started = true
                let thread = Thread { [self] in self.loop() }
                thread.name = "locationd-relay"
                thread.start()
            }
            return true
        }
        guard admitted else {
            close(ends[0])
            close(ends[1])
            return .failed("the daemon is stopping")
        }
        notify()
        return .relayed(ends[0])
    }

    /// Ends the relay (at most once): every link is closed.
    func stop() {
        let running = control.withLock { control -> Bool? in
            guard !control.stopped else { return nil }
            control.stopped = true
            return control.started
        }
        switch running {
        case true?: notify()
        case false?:
            close(wake.read)
            close(wake.write)
        case nil: break
        }
    }

    private func notify() {
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    private func loop() {
        var links: [Link] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // 8-byte aligned, as control messages are.
        var controlBuffer = [UInt64](repeating: 0, count: 64)
        while true {
            links += control.withLock { control in
                defer { control.pending.removeAll() }
                return control.pending
            }
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            for link in links {
                var clientEvents: Int16 = 0
                if !link.clientDone, !link.pairDone, link.toPair.count < Self.bufferLimit {
                    clientEvents |= Int16(POLLIN)
                }
                if !link.clientDone, !link.toClient.isEmpty { clientEvents |= Int16(POLLOUT) }
                var pairEvents: Int16 = 0
                if !link.pairDone, link.toClient.count < Self.bufferLimit { pairEvents |= Int16(POLLIN) }
                if !link.pairDone, !link.toPair.isEmpty { pairEvents |= Int16(POLLOUT) }
                // A side with nothing to do is left out: a hung-up socket would otherwise wake `poll` at once, always.
                fds.append(pollfd(fd: clientEvents == 0 ? -1 : link.client, events: clientEvents, revents: 0))
                fds.append(pollfd(fd: pairEvents == 0 ? -1 : link.pair, events: pairEvents, revents: 0))
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                logger.error("Cannot wait on Settings connections", metadata: ["error": "\(reason)"])
                // Nothing is known of any socket: wait a little (not spin), then try again.
                _ = poll(nil, 0, 100)
                continue
            }
            if fds[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wake.read, &drained, drained.count) > 0 {}
                let rest = control.withLock { control -> [Link]? in
                    guard control.stopped else { return nil }
                    defer { control.pending.removeAll() }
                    return control.pending
                }
                if let rest {
                    (links + rest).forEach(Self.finish)
                    close(wake.read)
                    close(wake.write)
                    return
                }
            }
            var kept: [Link] = []
            kept.reserveCapacity(links.count)
            for (index, var link) in links.enumerated() {
                let client = fds[1 + 2 * index].revents
                let pair = fds[2 + 2 * index].revents
                if service(&link, client: client, pair: pair, buffer: &buffer, control: &controlBuffer) {
                    kept.append(link)
                } else {
                    Self.finish(link)
                }
            }
            links = kept
        }
    }

    /// Moves what can be moved; false when the link has ended.
    private func service(
        _ link: inout Link, client: Int16, pair: Int16, buffer: inout [UInt8], control: inout [UInt64]
    ) -> Bool {
        let readable = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)
        if client & readable != 0, !link.clientDone, !link.pairDone, link.toPair.count < Self.bufferLimit {
            switch receive(&link, buffer: &buffer, control: &control) {
            case let .bytes(count): link.toPair.append(contentsOf: buffer[0..<count])
            case .none: break
            case .end:
                link.clientDone = true
                link.toClient = []
            case let .refused(reason):
                logger.warning(
                    "Ending a Settings connection: bytes written by another process than the one that connected",
                    metadata: ["pid": "\(link.pid)", "reason": "\(reason)"])
                return false
            }
        }
        if pair & readable != 0, !link.pairDone {
            let count = Glibc.recv(link.pair, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                if !link.clientDone { link.toClient.append(contentsOf: buffer[0..<count]) }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                link.pairDone = true
                link.toPair = []
            }
        }
        if !link.clientDone, !link.toClient.isEmpty, !Self.flush(&link.toClient, into: link.client) {
            link.clientDone = true
            link.toClient = []
        }
        if !link.pairDone, !link.toPair.isEmpty, !Self.flush(&link.toPair, into: link.pair) {
            link.pairDone = true
            link.toPair = []
        }
        if link.clientDone, link.toPair.isEmpty { return false }
        // NIO closed its end: what it wrote last (an error frame) was sent above as far as the client's socket took
        // it; a client that does not read does not hold the link open.
        if link.pairDone { return false }
        return true
    }

    /// Sends what the socket takes; false when the connection is gone.
    private static func flush(_ bytes: inout [UInt8], into fd: Int32) -> Bool {
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if count > 0 {
                bytes.removeFirst(count)
                continue
            }
            if count < 0, errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
        return true
    }

    private static func finish(_ link: Link) {
        shutdown(link.client, Int32(SHUT_RDWR))
        close(link.client)
        close(link.pair)
        close(link.connector)
    }

    enum Received {
        case bytes(Int)
        /// Nothing now (`EAGAIN`).
        case none
        /// The client closed, or its socket failed.
        case end
        case refused(String)
    }

    /// One read of the client's socket, with its writer checked. Every descriptor received is closed.
    private func receive(_ link: inout Link, buffer: inout [UInt8], control: inout [UInt64]) -> Received {
        var descriptors: [Int32] = []
        var pidfds: [Int32] = []
        defer { (descriptors + pidfds).forEach { close($0) } }
        let result: (count: Int, flags: Int32) = buffer.withUnsafeMutableBytes { bytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    let count = recvmsg(link.client, &message, Int32(MSG_DONTWAIT) | Self.closeOnExecMessages)
                    guard count >= 0 else { return (count, 0) }
                    Self.controlMessages(controlBytes, length: message.msg_controllen) { type, descriptor in
                        if type == Self.pidfdMessage {
                            pidfds.append(descriptor)
                        } else {
                            descriptors.append(descriptor)
                        }
                    }
                    return (count, message.msg_flags)
                }
            }
        }
        if result.count < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .none : .end
        }
        if result.count == 0 { return .end }
        if result.flags & Int32(MSG_CTRUNC) != 0 { return .refused("control data cut short") }
        guard let sender = pidfds.first else {
            return link.credentialed ? .refused("bytes without their writer's pidfd") : .bytes(result.count)
        }
        link.credentialed = true
        guard pidfds.count == 1, Self.sameProcess(sender, link.connector, pid: link.pid) else {
            return .refused("written by pid \(PeerIdentity.pid(ofPidfd: sender).map(String.init) ?? "gone")")
        }
        return .bytes(result.count)
    }

    /// Calls `found` with each descriptor an `SCM_PIDFD` or `SCM_RIGHTS` message carries (`struct cmsghdr`: a
    /// `size_t` length, an `int` level and type, the data aligned to `size_t`).
    private static func controlMessages(
        _ control: UnsafeMutableRawBufferPointer, length: Int, _ found: (Int32, Int32) -> Void
    ) {
        let header = MemoryLayout<Int>.size + 2 * MemoryLayout<Int32>.size
        let alignment = MemoryLayout<Int>.size
        var offset = 0
        let end = min(length, control.count)
        while offset + header <= end {
            let messageLength = control.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = control.loadUnaligned(fromByteOffset: offset + alignment, as: Int32.self)
            let type = control.loadUnaligned(fromByteOffset: offset + alignment + 4, as: Int32.self)
            guard messageLength >= header, offset + messageLength <= end else { return }
            if level == SOL_SOCKET, type == pidfdMessage || type == rightsMessage {
                var data = offset + header
                while data + 4 <= offset + messageLength {
                    found(type, control.loadUnaligned(fromByteOffset: data, as: Int32.self))
                    data += 4
                }
            }
            offset += (messageLength + alignment - 1) / alignment * alignment
        }
    }

    /// Whether two pidfds are of one process. On pidfs (Linux 6.9+) a process has one inode, which no other process
    /// gets while a pidfd of it is open (the relay holds the connector's). Before it every pidfd shares one anonymous
    /// inode, and the pids are compared: the sender's first, then the connector's — the connector still alive with
    /// that pid after the sender had it means they are one process (two live processes never share a pid).
    static func sameProcess(_ sender: Int32, _ connector: Int32, pid: Int32) -> Bool {
        var senderInfo = stat()
        var connectorInfo = stat()
        if filesystemType(of: sender) == pidfsMagic, fstat(sender, &senderInfo) == 0,
            fstat(connector, &connectorInfo) == 0
        {
            return senderInfo.st_dev == connectorInfo.st_dev && senderInfo.st_ino == connectorInfo.st_ino
        }
        return PeerIdentity.pid(ofPidfd: sender) == pid && PeerIdentity.pid(ofPidfd: connector) == pid
    }

    private typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer?) -> Int32

    /// glibc's `fstatfs`, which Swift's Glibc module does not export: looked up by name, as `Acceptor` does `accept4`.
    private static let fstatfs: FStatFS? = {
        // RTLD_DEFAULT
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fstatfs") else { return nil }
        return unsafeBitCast(address, to: FStatFS.self)
    }()

    /// A descriptor's filesystem type (`struct statfs`'s first field, `f_type`: a `long` on 64-bit Linux, where
    /// the structure is 120 bytes), nil when unknown.
    static func filesystemType(of fd: Int32) -> Int? {
        #if arch(x86_64) || arch(arm64)
        guard let fstatfs else { return nil }
        var buffer = [UInt64](repeating: 0, count: 32)
        let result = buffer.withUnsafeMutableBytes { fstatfs(fd, $0.baseAddress) }
        return result == 0 ? Int(truncatingIfNeeded: buffer[0]) : nil
        #else
        return nil
        #endif
    }
}

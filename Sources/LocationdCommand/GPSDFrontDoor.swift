import Foundation
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
    import Glibc
#endif

/// locationd's gpsd front door (issue 39, decision 0077): gpsd's JSON protocol on the addresses of
/// `--gpsd-listen`. Each address is one more listening socket beside the daemon's, accepted by an `Acceptor` of its own
/// (decision 0099), so that each connection's descriptor is known from the start, as the daemon's own are (0098).
enum GPSDFrontDoor {
    /// One listening socket's accept loop, and the socket file it owns (a Unix address).
    struct Listener {
        var acceptor: Acceptor
        var socketPath: String?
    }

    /// Binds every address (`localhost` on both loopbacks). One that cannot be bound (gpsd itself on 2947, a stale
    /// path another locationd answers on, ::1 without IPv6) is logged and skipped: the daemon's own clients do not
    /// lose it for a misconfigured extra.
    static func listen(
        _ addresses: [GPSDListenAddress], group: any EventLoopGroup, core: DaemonCore, isRoot: Bool, logger: Logger
    ) -> [Listener] {
        guard !addresses.isEmpty else { return [] }
        let sources = Array(Set(core.sources.sources.map(\.descriptor.kind))).sorted().joined(separator: ",")
        var listeners: [Listener] = []
        for address in addresses.flatMap(\.sockets) {
            do {
                let listener: Listener
                switch address {
                case let .tcp(host, port):
                    let listening = try ListeningSocket.bind(host: host, port: port)
                    listener = Listener(
                        acceptor: try Acceptor(listening: listening, name: "locationd-gpsd", logger: logger),
                        socketPath: nil)
                case let .unix(path):
                    try ListeningSocket.prepare(path: path, logger: logger)
                    let listening = try ListeningSocket.bind(path: path)
                    _ = chmod(path, isRoot ? 0o666 : 0o600)
                    listener = Listener(
                        acceptor: try Acceptor(listening: listening, name: "locationd-gpsd", logger: logger),
                        socketPath: path)
                }
                listener.acceptor.start(
                    connections(
                        group: group, core: core, sources: sources, unix: listener.socketPath != nil, logger: logger))
                listeners.append(listener)
                logger.info("Speaking gpsd's protocol", metadata: ["address": "\(address)"])
            } catch {
                logger.error(
                    "Cannot listen for gpsd clients", metadata: ["address": "\(address)", "error": "\(error)"])
            }
        }
        return listeners
    }

    /// What the front door's acceptors do with each connection: hand it to NIO with the options and handler
    /// `ServerBootstrap` gave, the descriptor kept with the socket's cookie for the direct writes (`DirectSocket`).
    /// A Unix peer's credentials and executable are read from the descriptor at accept, before a byte of it is
    /// read, as the daemon's own socket does (decision 0100): a later read could name what the process exec'd since.
    static func connections(
        group: any EventLoopGroup, core: DaemonCore, sources: String, unix: Bool, logger: Logger
    ) -> Acceptor.Connect {
        { descriptor in
            let accepted = unix ? PeerIdentity.accepted(descriptor) : nil
            // No relay here (gpsd's commands are no Settings requests): the pidfd is not needed past the read.
            if let pidfd = accepted?.pidfd, pidfd >= 0 { close(pidfd) }
            let bootstrap = Acceptor.bootstrap(group: group)
                .channelInitializer { channel in
                    DirectSocket.cookie(of: channel).flatMapThrowing { cookie in
                        try channel.pipeline.syncOperations.addHandler(
                            GPSDConnection(
                                core: core, sources: sources, accepted: accepted,
                                socket: cookie.map { DirectSocket.Accepted(descriptor: descriptor, cookie: $0) },
                                logger: logger))
                    }
                }
            // On failure NIO has closed the channel, and with it the descriptor.
            bootstrap.withConnectedSocket(descriptor).whenFailure { error in
                logger.warning("Cannot serve a gpsd client", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The peer's identity from the kernel: on a Unix socket what was read at accept (`accepted`), the loopback
    /// peer's process through `/proc/net/tcp{,6}` (`LoopbackPeer`) on TCP; nil for any other peer. Read off the event
    /// loop.
    static func identify(_ channel: any Channel, accepted: PeerIdentity.Accepted?) -> EventLoopFuture<PeerIdentity?> {
        guard let remote = channel.remoteAddress, remote.protocol != .unix else {
            return accepted.map { PeerIdentity.of($0, on: channel.eventLoop) } ?? channel.eventLoop.makeSucceededFuture(nil)
        }
        guard let remoteHost = remote.ipAddress, let remotePort = remote.port, let local = channel.localAddress,
            let localHost = local.ipAddress, let localPort = local.port
        else { return channel.eventLoop.makeSucceededFuture(nil) }
        let promise = channel.eventLoop.makePromise(of: PeerIdentity?.self)
        let acceptedAt = DispatchTime.now().uptimeNanoseconds
        DaemonCore.identityQueue.async {
            promise.succeed(
                LoopbackPeer.identity(
                    remoteHost: remoteHost, remotePort: remotePort, localHost: localHost, localPort: localPort,
                    index: loopbackIndex, acceptedAt: acceptedAt))
        }
        return promise.futureResult
    }

    /// The tables read for the loopback peers, shared by every connection (`LoopbackPeer.Index`).
    static let loopbackIndex = LoopbackPeer.Index()
}

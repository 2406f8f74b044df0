import Foundation
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
    import Glibc
#endif

/// locationd's gpsd front door (issue 39, decision 0077): gpsd's JSON protocol on the addresses of
/// `--gpsd-listen`, each one more listening channel beside the daemon's socket, run as a `ServerService`.
enum GPSDFrontDoor {
    /// One listening channel, and the socket file it owns (a Unix address).
    struct Listener {
        var channel: any Channel
        var socketPath: String?
    }

    /// Binds every address (`localhost` on both loopbacks). One that cannot be bound (gpsd itself on 2947, a stale
    /// path another locationd answers on, ::1 without IPv6) is logged and skipped: the daemon's own clients do not
    /// lose it for a misconfigured extra.
    static func listen(
        _ addresses: [GPSDListenAddress], group: any EventLoopGroup, core: DaemonCore, isRoot: Bool, logger: Logger
    ) async -> [Listener] {
        guard !addresses.isEmpty else { return [] }
        let sources = Array(Set(core.sources.sources.map(\.descriptor.kind))).sorted().joined(separator: ",")
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 128 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        GPSDConnection(core: core, sources: sources, logger: logger))
                }
            }
        var listeners: [Listener] = []
        for address in addresses.flatMap(\.sockets) {
            do {
                switch address {
                case let .tcp(host, port):
                    listeners.append(Listener(channel: try await bootstrap.bind(host: host, port: port).get()))
                case let .unix(path):
                    try ListeningSocket.prepare(path: path, logger: logger)
                    let channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
                    _ = chmod(path, isRoot ? 0o666 : 0o600)
                    listeners.append(Listener(channel: channel, socketPath: path))
                }
                logger.info("Speaking gpsd's protocol", metadata: ["address": "\(address)"])
            } catch {
                logger.error(
                    "Cannot listen for gpsd clients", metadata: ["address": "\(address)", "error": "\(error)"])
            }
        }
        return listeners
    }

    /// The peer's identity from the kernel: `SO_PEERCRED` on a Unix socket, the loopback peer's process through
    /// `/proc/net/tcp{,6}` (`LoopbackPeer`) on TCP; nil for any other peer. Read off the event loop.
    static func identify(_ channel: any Channel) -> EventLoopFuture<PeerIdentity?> {
        guard let remote = channel.remoteAddress, remote.protocol != .unix else { return PeerIdentity.of(channel) }
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

import CoreLocationDaemonProtocol
import Logging
import NIOCore

/// Splits the inbound stream into frames; an oversized frame is answered with an error and the
/// connection closed. A frame begun must be completed within `frameTimeout` seconds, and what all connections
/// hold of incomplete frames is bounded (`PartialFrames`; issue 37, item 7).
struct FrameSplitter: ByteToMessageDecoder {
    typealias InboundOut = [UInt8]
    var decoder = FrameDecoder()
    /// The daemon's budget for incomplete frames, and this connection's share of it.
    var partial: PartialFrames?
    var held = 0
    var frameTimeout: Double = 10
    /// Runs while a frame is incomplete; restarted when a frame completes and the next one has begun.
    var frameTimer: Scheduled<Void>?

    init(partial: PartialFrames? = nil, frameTimeout: Double = 10) {
        self.partial = partial
        self.frameTimeout = frameTimeout
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { decoder.append(bytes) }
        var completed = false
        while let frame = try decoder.next() {
            completed = true
            context.fireChannelRead(wrapInboundOut(frame))
        }
        try account(context: context, frameCompleted: completed)
        return .needMoreData
    }

    /// This connection's incomplete frame against the daemon's budget, and the timer it must complete within.
    private mutating func account(context: ChannelHandlerContext, frameCompleted: Bool) throws {
        let pending = decoder.bufferedCount
        if let partial {
            guard partial.hold(from: held, to: pending) else {
                throw PartialFrames.Refusal.overBudget(limit: partial.limit)
            }
            held = pending
        }
        if frameCompleted || pending == 0 {
            frameTimer?.cancel()
            frameTimer = nil
        }
        if pending > 0, frameTimer == nil {
            let seconds = frameTimeout
            let pipeline = context.pipeline
            frameTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
                pipeline.fireErrorCaught(PartialFrames.Refusal.timedOut(seconds: seconds))
            }
        }
    }

    /// The connection went: its share of the budget is given back.
    mutating func decoderRemoved(context: ChannelHandlerContext) {
        frameTimer?.cancel()
        frameTimer = nil
        _ = partial?.hold(from: held, to: 0)
        held = 0
        decoder = FrameDecoder()
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        return .needMoreData
    }
}

/// One connection's protocol: hello first (within the hello timeout), then requests. Runs on the
/// channel's event loop.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]

    private let core: DaemonCore
    private let logger: Logger
    private var identity: PeerIdentity?
    /// The socket's descriptor (NIO's) and cookie, duplicated at the hello for direct writes (`DirectSocket`).
    private let socket: DirectSocket.Accepted?
    private var peer: Peer?
    private var helloTimer: Scheduled<Void>?
    private var writeTimer: Scheduled<Void>?
    /// Connections per uid; nil when this handler is not counted (tests that make one by hand).
    private let connections: ConnectionCounter?
    /// The uid this connection was counted under, released when it closes.
    private var counted: UInt32?

    init(
        core: DaemonCore, identity: PeerIdentity?, socket: DirectSocket.Accepted? = nil,
        connections: ConnectionCounter? = nil, logger: Logger
    ) {
        self.core = core
        self.identity = identity
        self.socket = socket
        self.connections = connections
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let identity else {
            logger.warning("Refusing a connection whose peer cannot be identified")
            context.close(promise: nil)
            return
        }
        let channel = context.channel
        if let connections {
            guard connections.admit(uid: identity.uid) else {
                // Refused at once, before the hello, with one error frame the client can show.
                return fatal(
                    DaemonError(
                        .notPermitted,
                        "user \(identity.uid) holds \(connections.limit) connections, the most one user may",
                        fatal: true),
                    channel: channel)
            }
            counted = identity.uid
        }
        let limits = core.limits
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        helloTimer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(limits.helloTimeout * 1000))) {
            guard bound.value.peer == nil else { return }
            bound.value.fatal(DaemonError(.helloTimeout, "no hello within \(limits.helloTimeout) s", fatal: true), channel: channel)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let message: ClientMessage
        do {
            message = try DaemonProtocol.decode(ClientMessage.self, from: frame)
        } catch {
            if peer == nil, let version = DaemonProtocol.version1(of: frame) {
                return refuse(version: version, context: context)
            }
            let error = DaemonError(.malformed, "not a locationd message: \(error)", fatal: peer == nil)
            if let peer { peer.send(.error(error)) } else { fatal(error, channel: context.channel) }
            return
        }
        guard let peer else { return hello(message, context: context) }
        switch message {
        case .hello:
            peer.send(.error(DaemonError(.malformed, "hello already received")))
        case let .request(id, body):
            core.handle(body, from: peer) { [weak peer] reply in
                if case .ok = reply, case .acknowledge = body { return }
                peer?.send(.reply(id: id, body: reply))
            }
        }
    }

    private func hello(_ message: ClientMessage, context: ChannelHandlerContext) {
        guard case let .hello(hello) = message else {
            return fatal(DaemonError(.helloExpected, "the first message must be a hello", fatal: true), channel: context.channel)
        }
        guard hello.version == DaemonProtocol.version else {
            return fatal(
                DaemonError(
                    .incompatibleVersion,
                    "locationd speaks protocol version \(DaemonProtocol.version); this client speaks version \(hello.version)",
                    fatal: true),
                channel: context.channel)
        }
        guard var identity else { return }
        identity.declaredExecutable = hello.executable
        helloTimer?.cancel()
        let label = String((hello.label ?? NSStringPath(path: identity.executable).lastComponent).prefix(64))
        let peer = Peer(
            id: core.nextPeerID(), channel: context.channel, writer: core.writers.writer(for: context.eventLoop),
            socket: socket.flatMap(DirectSocket.duplicate) ?? -1, identity: identity, label: label,
            limits: core.limits, logger: logger)
        self.peer = peer
        core.attach(peer) { peer.send(.hello($0)) }
    }

    /// A hello of protocol version 1 (decision 0068): answered in that version's shape, which its clients read
    /// and show ("incompatible-version", both versions named), then closed.
    private func refuse(version: Int, context: ChannelHandlerContext) {
        let error = DaemonError(
            .incompatibleVersion,
            "locationd speaks protocol version \(DaemonProtocol.version); this client speaks version \(version)",
            fatal: true)
        fatal(error, channel: context.channel, frame: try? DaemonProtocol.version1Frame(error))
    }

    private func fatal(_ error: DaemonError, channel: any Channel) {
        fatal(error, channel: channel, frame: try? DaemonProtocol.frame(DaemonMessage.error(error)))
    }

    private func fatal(_ error: DaemonError, channel: any Channel, frame: [UInt8]?) {
        logger.notice("Closing a connection", metadata: ["error": "\(error)"])
        let close: @Sendable () -> Void = {
            if let frame {
                channel.writeAndFlush(channel.allocator.buffer(bytes: frame)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
        // After a hello the reply hello is sent once the app is resolved, off the loop (`DaemonCore.attach`): the
        // error goes after it.
        if let peer { core.afterAttach(peer, close) } else { close() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? FrameDecoder.Failure, case let .oversized(length, limit) = failure {
            fatal(
                DaemonError(.oversized, "a frame of \(length) bytes is over the limit of \(limit)", fatal: true),
                channel: context.channel)
        } else if let refusal = error as? PartialFrames.Refusal {
            let message = switch refusal {
            case let .overBudget(limit): "the daemon holds \(limit) bytes of incomplete frames: no more now"
            case let .timedOut(seconds): "a frame begun was not completed within \(seconds) s"
            }
            fatal(DaemonError(.tooSlow, message, fatal: true), channel: context.channel)
        } else {
            logger.debug("Connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    /// A client that leaves its socket full is not read from (its requests wait) and, after the
    /// write timeout, cut off; other clients are not held up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let channel = context.channel
        if channel.isWritable {
            writeTimer?.cancel()
            writeTimer = nil
            channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        } else {
            channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            let timeout = core.limits.writeTimeout
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            writeTimer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
                guard !channel.isWritable else { return }
                if let peer = bound.value.peer { peer.cutOff("socket full for \(timeout) s") } else { channel.close(promise: nil) }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        writeTimer?.cancel()
        if let uid = counted {
            connections?.release(uid: uid)
            counted = nil
        }
        if let peer {
            peer.closed()
            core.detach(peer)
        }
        self.peer = nil
        context.fireChannelInactive()
    }
}

/// `lastPathComponent` without Foundation's NSString bridging in this file.
private struct NSStringPath {
    let path: String
    var lastComponent: String { path.split(separator: "/").last.map(String.init) ?? path }
}


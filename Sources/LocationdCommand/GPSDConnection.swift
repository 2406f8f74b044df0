import CoreLocationEngine
import CoreLocationRuntime
import CoreLocationSources
import Foundation
import Logging
import NIOCore

/// One client of the gpsd front door (decision 0077): `VERSION` on connect, requests a line at a time, `TPV` for
/// every fix the engine delivers while it watches and its app may have it. Runs on the channel's event loop; the
/// engine's other events hop to it, while fixes are written on the thread that delivers them (`GPSDFixWriter`).
final class GPSDConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let core: DaemonCore
    private let logger: Logger
    /// The kinds of the daemon's sources, the device's `subtype`.
    private let sources: String
    /// The socket's descriptor (NIO's) and cookie, from the front door's acceptor: duplicated when the channel
    /// becomes active, for the direct writes (`DirectSocket`; decision 0099).
    private let socket: DirectSocket.Accepted?
    /// A Unix peer's credentials and executable as the kernel gave them at accept; nil on TCP (`GPSDFrontDoor.identify`).
    private let accepted: PeerIdentity.Accepted?
    private var context: ChannelHandlerContext?
    /// Made when the channel becomes active: everything this client is sent goes through its output.
    private var fixes: GPSDFixWriter?
    private var client: ProtocolClient?
    private var isClosed = false
    /// The current line, never longer than `GPSDRequest.maximumLineBytes`.
    private var line: [UInt8] = []
    /// A line went over the bound: the rest of it is dropped, up to its newline.
    private var discarding = false
    private var policy = GPSDWatchPolicy()
    /// Whether the app may have locations: nil while unknown or undecided.
    private var allowed: Bool?
    /// Whether it may have them at full accuracy: only then is `SKY` written (a satellite view dates and roughly
    /// places a receiver, more than the 5 km cell a reduced app gets).
    private var fullAccuracy = false
    /// When the current watch began (the device's `activated`).
    private var activated: Date?
    private var writeTimer: Scheduled<Void>?
    /// The receivers' sentences, while the client watches with `nmea`, may have full accuracy and the daemon has a
    /// live receiver (decision 0090); nil otherwise, and then its sentences are made from its fixes.
    private var relayTokens: [(any SentenceRelaying, UInt64)]?

    init(
        core: DaemonCore, sources: String, accepted: PeerIdentity.Accepted? = nil, socket: DirectSocket.Accepted? = nil,
        logger: Logger
    ) {
        self.core = core
        self.sources = sources
        self.accepted = accepted
        self.socket = socket
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// gpsd greets first; the peer is identified meanwhile, and its requests are read once its client is open.
    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let core = core
        let label = Self.label(channel)
        // On the event loop while the channel is open: NIO cannot have closed the number (the cookie is checked too).
        let output = ConnectionOutput(
            channel: channel, writer: core.writers.writer(for: context.eventLoop),
            socket: socket.flatMap(DirectSocket.duplicate) ?? -1,
            maximumBufferedBytes: core.limits.maximumBufferedBytes
        ) { [logger] reason in
            logger.notice("gpsd client cut off", metadata: ["reason": "\(reason)", "peer": "\(label)"])
        }
        let fixes = GPSDFixWriter(output: output, sources: core.sources)
        self.fixes = fixes
        send(GPSDReport.version)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        GPSDFrontDoor.identify(channel, accepted: accepted).whenSuccess { identity in
            DaemonCore.identityQueue.async {
                let client = core.openProtocolClient(identity: identity, service: .gpsd, label: label) { event in
                    if case let .delivery(delivery) = event {
                        fixes.deliver(delivery)
                    } else {
                        bound.eventLoop.execute { bound.value.handle(event) }
                    }
                }
                bound.eventLoop.execute { bound.value.attach(client) }
            }
        }
        context.fireChannelActive()
    }

    static func label(_ channel: any Channel) -> String {
        switch channel.remoteAddress {
        case let .some(address) where address.protocol != .unix: "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        default: "unix"
        }
    }

    private func attach(_ client: ProtocolClient) {
        guard !isClosed else {
            DaemonCore.identityQueue.async { [core] in core.close(client) }
            return
        }
        self.client = client
        context?.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var rest = unwrapInboundIn(data).readableBytesView
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            append(rest[..<newline])
            if !discarding { handle(line: line) }
            discarding = false
            line.removeAll(keepingCapacity: true)
            rest = rest[rest.index(after: newline)...]
            if isClosed { return }
        }
        append(rest)
    }

    /// Adds to the current line, up to the bound: past it, one ERROR and the rest of the line is dropped.
    private func append(_ bytes: ByteBufferView) {
        guard !discarding, !bytes.isEmpty else { return }
        guard line.count + bytes.count <= GPSDRequest.maximumLineBytes else {
            send(GPSDReport.error("Request too long (more than \(GPSDRequest.maximumLineBytes) bytes)"))
            discarding = true
            line = []
            return
        }
        line.append(contentsOf: bytes)
    }

    private func handle(line bytes: [UInt8]) {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return }
        for request in GPSDRequest.parse(line: Substring(text)) { handle(request) }
    }

    private func handle(_ request: GPSDRequest) {
        switch request {
        case .version: send(GPSDReport.version)
        case .devices: send(GPSDReport.devices(activated: activated, sources: sources))
        case .poll:
            let active = policy.enable && allowed == true ? 1 : 0
            let last = active == 1 ? fixes?.lastFix.map { [$0] } ?? [] : []
            let skies = fullAccuracy ? last.compactMap { core.sources.satelliteView(for: $0) } : []
            send(GPSDReport.poll(at: Date(), active: active, fixes: last, skies: skies))
        case let .invalid(message): send(GPSDReport.error(message))
        case .watch(nil): send(GPSDReport.watch(policy))
        case let .watch(text?):
            guard let object = GPSDRequest.object(text) else {
                send(GPSDReport.error("Invalid WATCH: \(text.prefix(64))"))
                return
            }
            watch(object)
        }
    }

    private func watch(_ object: [String: Any]) {
        let wasEnabled = policy.enable
        policy.applyEnable(object)
        // Stopping takes effect before its reply; starting or changing after it (`publish` below).
        if !policy.enable { publish() }
        if let device = policy.device, device != GPSDReport.devicePath {
            send(GPSDReport.error("No such device as \(device)"))
            policy.device = nil
        }
        if policy.enable {
            if !wasEnabled { activated = Date() }
            send(GPSDReport.devices(activated: activated, sources: sources))
            send(GPSDReport.watch(policy))
            if !wasEnabled { startWatching() }
        } else {
            if wasEnabled, let client {
                core.stopUpdates(client)
                activated = nil
                allowed = nil
            }
            send(GPSDReport.watch(policy))
        }
        updateRelay()
        publish()
    }

    /// Copies what a fix's reports depend on to the writer that fixes reach (`GPSDFixWriter`), at each change.
    private func publish() {
        fixes?.publish(
            GPSDFixWriter.Watch(
                enable: policy.enable, json: policy.json, nmea: policy.nmea, allowed: allowed,
                fullAccuracy: fullAccuracy, relaying: relayTokens != nil))
    }

    /// Relays the receivers' sentences while the client watches with `nmea` and its app may have locations at full
    /// accuracy: a sentence is the receiver's own position and time, which an app at reduced accuracy may not have.
    private func updateRelay() {
        let wanted = !isClosed && policy.enable && policy.nmea && allowed == true && fullAccuracy
        if wanted, relayTokens == nil, let fixes {
            let tokens = core.sources.relaySentences { lines in fixes.relay(lines) }
            // No live receiver: nil, and the client's sentences are made from its fixes.
            relayTokens = tokens.isEmpty ? nil : tokens
        } else if !wanted, let tokens = relayTokens {
            core.sources.stopRelaying(tokens)
            relayTokens = nil
        }
        publish()
    }

    /// Asks for the app's decision (a prompt, or the headless policy, when there is none) and starts updates
    /// once it allows them.
    private func startWatching() {
        guard let client, let context else { return }
        allowed = nil
        publish()
        let core = core
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        Task {
            let authorization = await core.authorize(client)
            bound.eventLoop.execute { bound.value.apply(authorization) }
        }
    }

    /// The app's decision, when asked or when it changes (`locationctl authorize`): updates start when it allows
    /// them; when it stops allowing them the client hears one `ERROR`, and no report until it allows them again.
    private func apply(_ authorization: ClientAuthorization) {
        guard policy.enable, let client else { return }
        fullAccuracy = authorization.accuracy == .full && !client.isReduced.load(ordering: .relaxed)
        if authorization.allowsLocation {
            if allowed != true { core.startUpdates(client, UpdateRequest(desiredAccuracy: -1, distanceFilter: -1)) }
            allowed = true
            publish()
        } else if authorization.level != .notDetermined {
            let wasDenied = allowed == false
            allowed = false
            // No report after the ERROR that says so.
            publish()
            if !wasDenied { send(GPSDReport.error("Location access denied to this program (locationctl authorize)")) }
        } else {
            publish()
        }
        updateRelay()
    }

    private func handle(_ event: ClientEvent) {
        guard !isClosed else { return }
        switch event {
        case let .authorization(authorization):
            apply(authorization)
        default:
            break
        }
    }

    /// Writes one object as a line. A client whose unread output passes the daemon's bound is cut off (issue 20's
    /// rule for every client), so it costs bounded memory however it behaves.
    private func send(_ object: String) {
        guard !isClosed, let fixes else { return }
        fixes.output.send(ByteBuffer(string: GPSDReport.line(object)))
    }

    private func cutOff(_ reason: String) {
        guard let context, !isClosed else { return }
        logger.notice(
            "gpsd client cut off", metadata: ["reason": "\(reason)", "peer": "\(Self.label(context.channel))"])
        context.close(promise: nil)
        closed()
    }

    /// A client that leaves its socket full is not read from and, after the write timeout, cut off.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let channel = context.channel
        if channel.isWritable {
            writeTimer?.cancel()
            writeTimer = nil
            if client != nil { channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in } }
        } else {
            channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            let timeout = core.limits.writeTimeout
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            writeTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
                guard !channel.isWritable else { return }
                bound.value.cutOff("socket full for \(timeout) s")
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("gpsd client error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func closed() {
        guard !isClosed else { return }
        isClosed = true
        writeTimer?.cancel()
        writeTimer = nil
        updateRelay()
        fixes?.output.closed()
        if let client { DaemonCore.identityQueue.async { [core] in core.close(client) } }
    }
}

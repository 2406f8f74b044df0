import CoreLocationDaemonProtocol
import CoreLocationEngine
import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One connection: who it is (from the kernel), its engine clients, and its outbound accounting.
final class Peer: Sendable {
    struct State {
        /// The connection's client numbers → the app engine's.
        var clients: [ClientID: ClientID] = [:]
        var labels: [ClientID: String] = [:]
        var services: [ClientID: Set<String>] = [:]
        var nextSequence: UInt64 = 0
        var acknowledged: UInt64 = 0
        var ackWaiters: [(sequence: UInt64, done: @Sendable () -> Void)] = []
        var lastDelivery: Double?
        /// Bytes sent and not yet handed to the channel (waiting in the loop writer's queue).
        var queuedBytes = 0
        /// Our duplicate of the connection's socket (`DirectSocket`), -1 when there is none.
        var socket: Int32 = -1
        /// Frames go through the loop until what the socket did not take has drained.
        var throughLoop = false
        var isClosed = false
        var app: DaemonCore.AppKey?
        /// The app runs in a terminal and asks there when its user has no agent (`offerPrompts`).
        var offersPrompts = false
        /// The app's delegate can take its pending events (`receivePending`).
        var receivesPending = false
        /// How to start the process again is stored (`recordLaunchTarget`): once per connection, not at each of
        /// its region starts (the reporter moves its region at every report).
        var launchTargetRecorded = false
        /// The process holds a background activity or service session now (`holdSession`), and
        /// whether it ever did on this connection (decision 0048).
        var holdsSession = false
        var heldSession = false
    }

    let id: UInt64
    let channel: any Channel
    let identity: PeerIdentity
    let label: String
    let limits: DaemonLimits
    let logger: Logger
    /// Writes this connection's frames on its event loop, with every other connection's of the loop.
    let writer: LoopWriter
    let state = Mutex(State())

    init(
        id: UInt64, channel: any Channel, writer: LoopWriter, socket: Int32 = -1, identity: PeerIdentity,
        label: String, limits: DaemonLimits, logger: Logger
    ) {
        self.id = id
        self.channel = channel
        self.writer = writer
        self.identity = identity
        self.label = label
        self.limits = limits
        self.logger = logger
        state.withLock { $0.socket = socket }
    }

    /// Sends an event; sequenced events must be acknowledged. Returns the sequence number.
    @discardableResult
    func sendEvent(_ event: DaemonEvent, sequenced: Bool = false) -> UInt64? {
        let sequence: UInt64? = sequenced ? state.withLock { state in
            state.nextSequence += 1
            return state.nextSequence
        } : nil
        send(.event(sequence: sequence, body: event))
        return sequence
    }

    /// Frames and writes a message from any thread; a peer whose unread output passes the limit is
    /// cut off (it stopped reading), without holding up anyone else.
    func send(_ message: DaemonMessage) {
        let bytes: [UInt8]
        do { bytes = try DaemonProtocol.frame(message) } catch {
            logger.error("Cannot encode a message", metadata: ["error": "\(error)"])
            return
        }
        send(frame: ByteBuffer(bytes: bytes))
    }

    /// Writes a frame already encoded (a delivery shared by many clients: the buffer is the same
    /// for each, never copied), from any thread. Straight into the socket from the calling thread
    /// (`DirectSocket`: no hop to the event loop) while nothing of this connection waits; what the
    /// socket does not take, and everything after it until that has drained, goes through the loop
    /// (`LoopWriter`, then the channel) in the order sent. Decision 0042.
    func send(frame: ByteBuffer) {
        let overLimit = state.withLock { state -> Bool in
            if state.isClosed { return false }
            var rest = frame
            if state.socket >= 0, !state.throughLoop {
                switch DirectSocket.send(state.socket, frame) {
                case .sent, .broken: return false
                case let .partial(written): rest.moveReaderIndex(forwardBy: written)
                }
                state.throughLoop = true
            }
            state.queuedBytes += rest.readableBytes
            if state.queuedBytes > limits.maximumBufferedBytes { return true }
            // Queued under the lock: a frame sent later, from any thread, is written after it.
            writer.enqueue(rest, to: self)
            return false
        }
        if overLimit { cutOff("more than \(limits.maximumBufferedBytes) bytes unread") }
    }

    /// On the loop (`LoopWriter`): hands a queued frame to the channel. Unread output is what the
    /// channel still holds (not yet taken by the kernel) plus what waits in the writer's queue;
    /// past the limit the client is cut off (issue 20's bound, as the write promises counted it).
    func writeOnLoop(_ frame: ByteBuffer) {
        let count = frame.readableBytes
        // A frame sent before the connection was closed is still written (`fail`: the error, then
        // the close); a closed channel fails the write harmlessly.
        let queued = state.withLock { state -> Int in
            state.queuedBytes -= count
            return state.queuedBytes
        }
        let unsent = (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        if unsent + queued + count > limits.maximumBufferedBytes, channel.isActive {
            cutOff("more than \(limits.maximumBufferedBytes) bytes unread")
            return
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in drained() }
        channel.writeAndFlush(frame, promise: promise)
    }

    /// On the loop, after a write through the channel: once nothing of this connection waits (in
    /// the writer's queue or in the channel), frames go straight to the socket again. Nothing can
    /// enter the channel meanwhile: only the loop hands frames to it, and this runs on the loop.
    private func drained() {
        let unsent = (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 1
        guard unsent == 0 else { return }
        state.withLock { state in
            if state.queuedBytes == 0 { state.throughLoop = false }
        }
    }

    /// The channel went inactive (on the loop): nothing is written any more, and our duplicate of
    /// the socket is closed, under the lock no direct write runs without.
    func closed() {
        state.withLock { state in
            state.isClosed = true
            if state.socket >= 0 {
                Glibc.close(state.socket)
                state.socket = -1
            }
        }
    }

    /// Sends a fatal error and closes.
    func fail(_ error: DaemonError) {
        send(.error(error))
        close()
    }

    func cutOff(_ reason: String) {
        logger.warning(
            "Cutting off a client that does not read", metadata: ["pid": "\(identity.pid)", "reason": "\(reason)"])
        close()
    }

    func close() {
        state.withLock { $0.isClosed = true }
        channel.close(promise: nil)
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    // MARK: Acknowledgements

    /// The latest sequenced event sent on this connection, if any.
    var lastSequence: UInt64? { state.withLock { $0.nextSequence == 0 ? nil : $0.nextSequence } }

    func acknowledge(_ sequence: UInt64) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.acknowledged = max(state.acknowledged, sequence)
            let acknowledged = state.acknowledged
            let ready = state.ackWaiters.filter { $0.sequence <= acknowledged }.map(\.done)
            state.ackWaiters.removeAll { $0.sequence <= acknowledged }
            return ready
        }
        for done in ready { done() }
    }

    /// Calls `done` once `sequence` is acknowledged or the connection closed.
    func whenAcknowledged(_ sequence: UInt64, _ done: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.isClosed || state.acknowledged >= sequence { return true }
            state.ackWaiters.append((sequence, done))
            return false
        }
        if now { done() }
    }

    /// Answers every waiter (the connection closed).
    func releaseWaiters() {
        let waiters = state.withLock { state in
            defer { state.ackWaiters.removeAll() }
            return state.ackWaiters.map(\.done)
        }
        for done in waiters { done() }
    }
}

/// Bounds on what one client may cost the daemon.
struct DaemonLimits: Sendable {
    /// Seconds a new connection has to say hello.
    var helloTimeout: Double = 5
    /// Seconds a client may leave its socket full before it is cut off.
    var writeTimeout: Double = 2
    /// Bytes of unread output a client may accumulate before it is cut off.
    var maximumBufferedBytes = 1 << 20
    /// Seconds `authorize` waits for running apps to acknowledge a change before it answers.
    var acknowledgeTimeout: Double = 1
    /// Engine clients (managers, monitors) one connection may register, and one app across its connections
    /// (issue 37; decision 0086: Apple's apps hold a handful of managers; these are far above any real app and
    /// keep one app's engine small enough that no client operation can stall the daemon).
    var maximumClientsPerConnection = 256
    var maximumClientsPerApp = 1_024
    /// Connections one uid may hold open at once (decision 0086): a connection costs two descriptors.
    var maximumConnectionsPerUID = 256
    /// Seconds a frame begun may take to complete, and the bytes of incomplete frames the daemon holds for all its
    /// connections together (decision 0086).
    var frameTimeout: Double = 10
    var maximumPartialFrameBytes = 16 << 20
}

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
        /// The hello's `token`, made after the executable was read; `identityConfirmed` once the client echoed it
        /// (`confirmIdentity`). Settings requests count only after that (decision 0011, connect-then-exec).
        var identityToken: String?
        var identityConfirmed = false
    }

    let id: UInt64
    let channel: any Channel
    let identity: PeerIdentity
    let label: String
    let limits: DaemonLimits
    let logger: Logger
    /// Writes this connection's frames: into its socket, else through its event loop (decision 0042).
    let output: ConnectionOutput
    let state = Mutex(State())

    init(
        id: UInt64, channel: any Channel, writer: LoopWriter, socket: Int32 = -1, identity: PeerIdentity,
        label: String, limits: DaemonLimits, logger: Logger
    ) {
        self.id = id
        self.channel = channel
        self.identity = identity
        self.label = label
        self.limits = limits
        self.logger = logger
        output = ConnectionOutput(
            channel: channel, writer: writer, socket: socket, maximumBufferedBytes: limits.maximumBufferedBytes
        ) { [logger, pid = identity.pid] reason in
            Self.logCutOff(logger, pid: pid, reason: reason)
        }
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

    /// Writes a frame already encoded (a delivery shared by many clients: the buffer is the same for each, never
    /// copied), from any thread, straight into the socket while nothing of this connection waits (decision 0042).
    func send(frame: ByteBuffer) {
        // Closing the peer closes its output, which then writes nothing: one lock a frame, not two.
        output.send(frame)
    }

    /// The channel went inactive (on the loop): nothing is written any more.
    func closed() {
        state.withLock { $0.isClosed = true }
        output.closed()
    }

    /// Sends a fatal error and closes.
    func fail(_ error: DaemonError) {
        send(.error(error))
        close()
    }

    func cutOff(_ reason: String) {
        Self.logCutOff(logger, pid: identity.pid, reason: reason)
        close()
    }

    private static func logCutOff(_ logger: Logger, pid: Int32, reason: String) {
        logger.warning("Cutting off a client that does not read", metadata: ["pid": "\(pid)", "reason": "\(reason)"])
    }

    func close() {
        state.withLock { $0.isClosed = true }
        output.close()
    }

    /// Closed, or being closed: by the daemon, the client, or its output (cut off for not reading).
    var isClosed: Bool { state.withLock { $0.isClosed } || output.isClosed }

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

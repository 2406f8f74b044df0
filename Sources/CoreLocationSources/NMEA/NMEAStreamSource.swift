import Foundation
import CoreLocationEngine
import Logging

/// A GNSS receiver speaking NMEA 0183, as a `LocationSource`: a recorded file, a serial device, a
/// TCP stream or stdin (see `NMEAInput`).
///
/// Events: `.fix` for each epoch with a position; `.unavailable(reason:)` for each epoch without one
/// (GGA quality 0, RMC status V…), when the input cannot be opened, when it vanishes mid-stream
/// (USB unplugged, connection closed), and every `silenceTimeout` seconds while nothing decodable
/// arrives — so the engine keeps knowing the source has nothing, and after its own no-fix timeout
/// reports `kCLErrorLocationUnknown` and falls back. Live inputs are reopened every `reopenInterval`
/// seconds after a failure, for as long as the source is on. A file ends with `.finished`; stdin too.
///
/// Files replay on the `Scheduler`'s timeline (so tests drive them with `ManualScheduler`): epochs
/// are spaced by the differences of their UTC times divided by the pace's speed, or delivered back
/// to back (`.asFastAsPossible`). Their fixes keep the recorded timestamps, are marked simulated
/// (software replays them) and are not week-roll-over corrected (an old recording is old). A `stop`
/// pauses a replay; `start` resumes where it stopped.
///
/// Live inputs are read on a thread of their own with `poll(2)`; no event is delivered after `stop()`
/// returns, and the handler may call `stop()` or `start(_:)`.
public final class NMEAStreamSource: LocationSource, FlowControlledSource {
    /// A serial GNSS receiver draws 25–50 mA at 5 V (u-blox, SiRF data sheets): about 150 mW.
    public static let receiverPowerCost = 150.0
    /// Typical horizontal accuracy of a consumer receiver, metres (HDOP 1 × σ_UERE 5 m).
    public static let expectedAccuracy = 5.0

    public let input: NMEAInput
    public let descriptor: SourceDescriptor
    public let reopenInterval: Double
    public let silenceTimeout: Double

    let endpoint: NMEAEndpoint?
    let scheduler: any Scheduler
    let logger: Logger
    let referenceDate: Date?
    /// Delivers exclusively: nothing after `stop()` returns, and a handler may call `stop()`/`start(_:)`.
    let state: SourceRun<State, SourceEvent>
    /// Who asked for the receiver's sentences as they arrive (`SentenceRelaying`).
    let sentenceListeners = SentenceListeners()

    struct State {
        var status = NMEAReceiverStatus()
        /// `NMEAEpochAssembler.statusAtRecentFixes` of the live input, as of the last delivery.
        var statusAtRecentFixes: [NMEAReceiverStatus] = []
        var replay: NMEAReplay?
        var work: (any ScheduledWork)?
        /// The write end of the running reader thread's wake-up pipe.
        var wakeDescriptor: Int32?
        var lockedBaud: Int?
        var isOpen = false
        /// The consumer's backpressure, once a runtime attached it.
        var flow: DeliveryFlow?
    }

    /// - Parameters:
    ///   - input: what to read.
    ///   - scheduler: time for replays and the wall clock for receive times.
    ///   - id: the source's id in the engine (default: the input's description).
    ///   - referenceDate: GPS week roll-over reference for live inputs (see `NMEAEpochAssembler`).
    ///   - reopenInterval: seconds between attempts to reopen a live input that failed, > 0.
    ///   - silenceTimeout: seconds without any epoch before `.unavailable` is repeated, > 0.
    public convenience init(
        input: NMEAInput,
        scheduler: any Scheduler,
        id: SourceID? = nil,
        referenceDate: Date? = NMEAEpochAssembler.releaseReferenceDate,
        reopenInterval: Double = 2,
        silenceTimeout: Double = 3,
        logger: Logger = Logger(label: "corelocation.nmea")
    ) {
        let endpoint: NMEAEndpoint? =
            switch input {
            case .file: nil
            case .serial(let path, let baud): .serial(path: path, baud: baud)
            case .tcp(let host, let port): .tcp(host: host, port: port)
            case .stdin: .descriptor(STDIN_FILENO, label: "stdin")
            }
        self.init(
            input: input, endpoint: endpoint, scheduler: scheduler, id: id ?? SourceID(input.description),
            referenceDate: referenceDate, reopenInterval: reopenInterval, silenceTimeout: silenceTimeout,
            logger: logger
        )
    }

    init(
        input: NMEAInput, endpoint: NMEAEndpoint?, scheduler: any Scheduler, id: SourceID, referenceDate: Date?,
        reopenInterval: Double, silenceTimeout: Double, logger: Logger
    ) {
        self.input = input
        self.endpoint = endpoint
        self.scheduler = scheduler
        self.referenceDate = referenceDate
        self.reopenInterval = reopenInterval > 0 ? reopenInterval : 2
        self.silenceTimeout = silenceTimeout > 0 ? silenceTimeout : 3
        self.logger = logger
        self.state = SourceRun(State(), exclusiveDelivery: true)
        let isReplay = endpoint == nil
        self.descriptor = SourceDescriptor(
            id: id, kind: "nmea", expectedAccuracy: Self.expectedAccuracy,
            powerCost: isReplay ? 1 : Self.receiverPowerCost, isSimulated: isReplay
        )
    }

    public func attach(_ flow: DeliveryFlow) {
        state.withLock { $0.flow = flow }
    }

    /// True when this source is a file replay that ended without finding one NMEA sentence.
    public var foundNoSentence: Bool {
        guard case .file = input else { return false }
        return state.withLock { $0.replay?.foundNoSentence ?? false }
    }

    /// The receiver's latest status and the stream's sentence counters.
    public var status: NMEAReceiverStatus { state.withLock { $0.replay?.status ?? $0.status } }

    /// True while a live input is open (device present, connection up); false for replays.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// The baud rate auto-detection settled on (serial inputs without a fixed rate), nil before.
    public var detectedBaudRate: Int? { state.withLock { $0.lockedBaud } }

    /// Checks that the input can be opened now (for a command line to fail early with a clear
    /// message); opens and closes it.
    public static func checkAccess(_ input: NMEAInput) throws(NMEASourceError) {
        switch input {
        case .file(let path, _):
            if let problem = FileProblem.check(path) {
                let code: NMEASourceError.Code =
                    switch problem.code {
                    case .noSuchFile: .notFound
                    case .permissionDenied: .permissionDenied
                    default: .cannotOpen
                    }
                throw NMEASourceError(code: code, message: problem.message, target: path, errno: problem.errno)
            }
        case .serial(let path, let baud):
            try NMEAChannel.open(.serial(path: path, baud: baud), baud: baud).close()
        case .tcp(let host, let port):
            try NMEAChannel.open(.tcp(host: host, port: port), baud: nil).close()
        case .stdin:
            break
        }
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        state.exclusively {
            let (generation, _) = state.start(handler) { state in
                state.work?.cancel()
                state.work = nil
                wake(&state)
            }
            if let endpoint {
                startReader(endpoint, generation: generation)
            } else {
                startReplay(generation: generation)
            }
        }
        logger.debug("NMEA source started", metadata: ["input": "\(input)"])
    }

    public func stop() {
        state.exclusively {
            state.stop { state in
                state.work?.cancel()
                state.work = nil
                wake(&state)
                state.isOpen = false
            }
        }
        logger.debug("NMEA source stopped", metadata: ["input": "\(input)"])
    }

    /// Tells a running reader thread to finish (it closes its own descriptors).
    private func wake(_ state: inout SourceRun<State, SourceEvent>.Run) {
        if let fd = state.wakeDescriptor {
            var byte: UInt8 = 1
            _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL))
            close(fd)
            state.wakeDescriptor = nil
        }
    }

    /// Delivers events if `generation` is still current; false when the source was stopped or restarted.
    @discardableResult
    func deliver(
        _ events: [SourceEvent], generation: Int, status: NMEAReceiverStatus?,
        atRecentFixes: [NMEAReceiverStatus]? = nil
    ) -> Bool {
        state.exclusively {
            if let status {
                state.ifCurrent(generation) {
                    $0.status = status
                    if let atRecentFixes { $0.statusAtRecentFixes = atRecentFixes }
                }
            }
            return state.emit(events, generation)
        }
    }

    static func sourceEvent(_ event: NMEAEpochEvent) -> SourceEvent {
        switch event {
        case .fix(let fix): .fix(fix)
        case .noFix(let reason): .unavailable(reason: reason)
        }
    }
}

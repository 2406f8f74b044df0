import Foundation
import CoreLocationEngine
import Logging

/// Fixes from a gpsd daemon over its JSON protocol.
///
/// On `start` it connects, sends `?WATCH={"enable":true,"json":true}` and turns each TPV with a
/// 2D/3D fix into a `Fix` (see `GPSDTPV.fix(receivedAt:)`). gpsd may report one epoch more than
/// once (it does while it learns a receiver's cycle: first from RMC alone, then with GGA's altitude
/// and GSA's DOPs): a TPV with the time of the last delivered one is dropped unless it is better
/// (3D where that was 2D, or a horizontal or vertical error estimate where that had none). A TPV without a fix, and
/// losing gpsd, give `.unavailable` (once per outage), which the engine turns into
/// `kCLErrorLocationUnknown`. A lost or refused connection is retried on the scheduler following
/// `backoff` (0.125 s doubling to 1 s), forever, until `stop()`.
///
/// Events arrive on the connection's thread, never after `stop()` returns; the handler may call
/// `stop()` or `start(_:)` itself.
public final class GPSDLocationSource: LocationSource {
    public let descriptor: SourceDescriptor
    public let endpoint: GPSDEndpoint
    public let backoff: GPSDBackoff

    private let transport: any GPSDTransport
    private let scheduler: any Scheduler
    private let logger: Logger
    /// Delivers exclusively: nothing after `stop()` returns, and a handler may call `stop()`/`start(_:)`.
    private let state: SourceRun<State, SourceEvent>

    private struct State {
        var channel: (any GPSDChannel)?
        /// The number of the latest connection attempt, whether it has closed, and whether its
        /// WATCH waits for the channel to be stored.
        var attempt = 0
        var attemptClosed = false
        var watchPending = false
        var retry: (any ScheduledWork)?
        var failures = 0
        var decoder: GPSDDecoder
        var lastDelivered: (time: Date, quality: FixQuality)?
        var isAvailable: Bool?
        var status: GPSDSourceStatus
        /// gpsd's latest `SKY`, and the one each recent fix went out with (at most 8, newest last): gpsd writes an
        /// epoch's SKY after its TPV, so a fix carries the view of the epoch before it (decision 0089).
        var latestSky: GPSDSky?
        var skyAtRecentFixes: [(fixTime: Date, sky: GPSDSky)] = []
    }

    /// - Parameters:
    ///   - endpoint: where gpsd listens (default 127.0.0.1:2947).
    ///   - transport: how to reach it (POSIX sockets unless a test scripts one).
    ///   - scheduler: times the reconnection attempts.
    public init(
        endpoint: GPSDEndpoint = .localhost,
        transport: any GPSDTransport = POSIXGPSDTransport(),
        scheduler: any Scheduler,
        backoff: GPSDBackoff = GPSDBackoff(),
        logger: Logger = Logger(label: "corelocation.gpsd")
    ) {
        self.endpoint = endpoint
        self.transport = transport
        self.scheduler = scheduler
        self.backoff = backoff
        self.logger = logger
        descriptor = SourceDescriptor(
            id: SourceID(endpoint.description), kind: "gpsd", expectedAccuracy: 5, powerCost: 100, isSimulated: false
        )
        state = SourceRun(
            State(decoder: GPSDDecoder(logger: logger), status: GPSDSourceStatus(endpoint: endpoint)),
            exclusiveDelivery: true)
    }

    /// What the source has learnt about gpsd so far.
    public var status: GPSDSourceStatus {
        state.withLock { state in
            var status = state.status
            status.invalidLines = state.decoder.invalidLines
            return status
        }
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        state.exclusively {
            let (_, old) = state.start(handler) { state -> (any GPSDChannel)? in
                let old = state.channel
                state.retry?.cancel()
                state.retry = nil
                state.failures = 0
                state.isAvailable = nil
                state.lastDelivered = nil
                state.channel = nil
                return old
            }
            old?.close()
            connect()
        }
        logger.debug("gpsd source started", metadata: ["endpoint": "\(endpoint)"])
    }

    public func stop() {
        state.exclusively {
            let channel = state.stop { state -> (any GPSDChannel)? in
                state.retry?.cancel()
                state.retry = nil
                let channel = state.channel
                state.channel = nil
                state.status.isConnected = false
                return channel
            }
            channel?.close()
        }
        logger.debug("gpsd source stopped", metadata: ["endpoint": "\(endpoint)"])
    }

    // MARK: Connection

    /// Opens a connection. The transport may report on its own thread before `open` even returns
    /// (a refused loopback connect is that fast), so each attempt has a number, events of other
    /// attempts are ignored, and the WATCH request waits for whichever comes last: the channel
    /// being stored or `connected`.
    private func connect() {
        let (generation, attempt) = state.withLock { state -> (Int, Int) in
            state.attempt += 1
            state.attemptClosed = false
            state.watchPending = false
            return (state.generation, state.attempt)
        }
        let channel = transport.open(endpoint) { [weak self] event in
            self?.transportEvent(event, generation: generation, attempt: attempt)
        }
        let (stale, sendWatch) = state.withLock { state -> (Bool, Bool) in
            guard state.generation == generation, state.handler != nil, state.attempt == attempt else {
                return (true, false)
            }
            if state.attemptClosed { return (false, false) }
            state.channel = channel
            defer { state.watchPending = false }
            return (false, state.watchPending)
        }
        if stale { channel.close() }
        if sendWatch { channel.send(Self.watchRequest) }
    }

    static let watchRequest = #"?WATCH={"enable":true,"json":true}"#

    private func transportEvent(_ event: GPSDTransportEvent, generation: Int, attempt: Int) {
        state.exclusively { transportEventExclusively(event, generation: generation, attempt: attempt) }
    }

    private func transportEventExclusively(_ event: GPSDTransportEvent, generation: Int, attempt: Int) {
        var events: [SourceEvent] = []
        var watchChannel: (any GPSDChannel)?
        let current = state.withLock { state -> Bool in
            guard state.isCurrent(generation), state.attempt == attempt else { return false }
            switch event {
            case .connected:
                state.decoder.discardPartialLine()
                state.failures = 0
                state.status.isConnected = true
                state.status.lastError = nil
                if let channel = state.channel {
                    watchChannel = channel
                } else {
                    state.watchPending = true
                }
            case .bytes(let bytes):
                for message in state.decoder.feed(bytes) {
                    events += handle(message, state: &state.extra)
                }
            case .closed(let reason):
                state.channel = nil
                state.attemptClosed = true
                state.status.isConnected = false
                state.status.lastError = reason
                state.failures += 1
                let delay = backoff.delay(afterFailures: state.failures)
                logger.debug("gpsd connection lost; retrying", metadata: ["reason": "\(reason)", "delay": "\(delay)"])
                state.retry = scheduler.schedule(at: scheduler.now + delay) { [weak self] in
                    self?.retry(generation: generation)
                }
                if state.isAvailable != false {
                    state.isAvailable = false
                    events.append(
                        .unavailable(
                            reason: "gpsd: \(reason), retrying every \(String(format: "%g", backoff.cap)) s"))
                }
            }
            return true
        }
        watchChannel?.send(Self.watchRequest)
        if current { state.emit(events, generation) }
    }

    private func retry(generation: Int) {
        let due = state.withLock { state -> Bool in
            guard state.generation == generation, state.handler != nil, state.attemptClosed else { return false }
            state.retry = nil
            return true
        }
        if due { connect() }
    }

    /// The source events one gpsd message gives.
    private func handle(_ message: GPSDMessage, state: inout State) -> [SourceEvent] {
        state.status.apply(message)
        switch message {
        case .tpv(let tpv):
            guard let fix = tpv.fix(receivedAt: scheduler.wallNow) else {
                guard tpv.mode != nil, state.isAvailable != false else { return [] }
                state.isAvailable = false
                return [.unavailable(reason: "gpsd reports no fix (mode \(tpv.mode ?? 0))")]
            }
            state.status.lastFix = fix
            let quality = FixQuality(tpv)
            if tpv.time != nil, let last = state.lastDelivered, fix.timestamp == last.time,
                !quality.improves(on: last.quality)
            {
                return []
            }
            state.lastDelivered = (fix.timestamp, quality)
            state.isAvailable = true
            if let sky = state.latestSky {
                state.skyAtRecentFixes.append((fix.timestamp, sky))
                if state.skyAtRecentFixes.count > 8 { state.skyAtRecentFixes.removeFirst() }
            }
            logger.debug("gpsd fix", metadata: ["lat": "\(fix.latitude)", "lon": "\(fix.longitude)"])
            return [.fix(fix)]
        case .sky(let sky):
            if sky.satellites?.isEmpty == false { state.latestSky = sky }
            return []
        case .error(let report):
            logger.debug("gpsd reported an error", metadata: ["message": "\(report.message ?? "")"])
            return []
        default:
            return []
        }
    }
}

/// How complete a TPV is, to tell a refinement of an epoch from a repeat of it.
struct FixQuality: Sendable {
    var dimensions: Int
    var hasErrorEstimate: Bool
    var hasVerticalEstimate: Bool

    init(_ tpv: GPSDTPV) {
        dimensions = tpv.mode ?? 0
        hasErrorEstimate = tpv.eph != nil || (tpv.epx != nil && tpv.epy != nil)
        hasVerticalEstimate = tpv.epv != nil
    }

    /// More dimensions, or an error estimate where `other` had none.
    func improves(on other: FixQuality) -> Bool {
        dimensions > other.dimensions || (hasErrorEstimate && !other.hasErrorEstimate)
            || (hasVerticalEstimate && !other.hasVerticalEstimate)
    }
}

extension GPSDLocationSource: SatelliteViewReporting {
    public func satelliteView(for fixTime: Date) -> SatelliteView? {
        state.withLock { state in
            state.skyAtRecentFixes.last { $0.fixTime == fixTime }.map { SatelliteView($0.sky, fixTime: fixTime) }
        }
    }
}

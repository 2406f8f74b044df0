import Foundation
import CoreLocationEngine
import Logging

/// A heading source reading gpsd's ATT reports (`heading` true, `mheading` magnetic; see
/// `GNSSHeading`) over its own connection, separate from any `GPSDLocationSource`. Samples are stamped
/// with the scheduler's wall clock on arrival. When the connection closes, `.unavailable` is reported
/// and it reconnects after `backoff` delays timed by the scheduler.
public final class GPSDHeadingSource: HeadingSource {
    public let endpoint: GPSDEndpoint
    public let backoff: GPSDBackoff
    public var name: String { "gpsd heading (\(endpoint))" }
    public var isSimulated: Bool { false }

    private let transport: any GPSDTransport
    private let scheduler: any Scheduler
    private let logger: Logger
    /// Delivers exclusively: nothing after `stop()` returns, and a handler may call `stop()`. A run (start to stop)
    /// may make several connections; each has its own attempt number, so a closed connection's late bytes are
    /// dropped.
    private let state = SourceRun(State(), events: HeadingSourceEvent.self, exclusiveDelivery: true)

    fileprivate struct State {
        var attempt = 0
        var channel: (any GPSDChannel)?
        var retry: (any ScheduledWork)?
        var failures = 0
        var decoder = GPSDDecoder()
    }

    public init(
        endpoint: GPSDEndpoint = .localhost, transport: any GPSDTransport = POSIXGPSDTransport(),
        scheduler: any Scheduler, backoff: GPSDBackoff = GPSDBackoff(),
        logger: Logger = Logger(label: "corelocation.heading.gpsd")
    ) {
        self.endpoint = endpoint
        self.transport = transport
        self.scheduler = scheduler
        self.backoff = backoff
        self.logger = logger
    }

    public func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        state.exclusively {
            let (run, old) = state.start(handler) { state -> (any GPSDChannel)? in
                state.failures = 0
                return state.extra.reset()
            }
            old?.close()
            connect(run)
        }
    }

    public func stop() {
        state.exclusively {
            let old = state.stop { $0.extra.reset() }
            old?.close()
        }
    }

    private func connect(_ run: Int) {
        guard let attempt = state.ifCurrent(run, { $0.attempt }) else { return }
        let channel = transport.open(endpoint) { [weak self] event in
            self?.receive(event, run: run, attempt: attempt)
        }
        let stale = state.withLock { state -> Bool in
            guard state.isCurrent(run), state.attempt == attempt else { return true }
            state.channel = channel
            return false
        }
        if stale { channel.close() }
    }

    private func receive(_ event: GPSDTransportEvent, run: Int, attempt: Int) {
        state.exclusively { receiveExclusively(event, run: run, attempt: attempt) }
    }

    private func receiveExclusively(_ event: GPSDTransportEvent, run: Int, attempt: Int) {
        switch event {
        case .connected:
            // Sent through the handler's own channel reference: `open` may not have returned yet.
            let channel = self.channel(run: run, attempt: attempt)
            channel?.send(#"?WATCH={"enable":true,"json":true};"#)
            if channel == nil { pendingWatch(run: run, attempt: attempt) }
        case .bytes(let bytes):
            let timestamp = scheduler.wallNow
            let samples = state.withLock { state -> [HeadingSample]? in
                guard state.isCurrent(run), state.attempt == attempt else { return nil }
                state.failures = 0
                return state.decoder.feed(bytes).compactMap { message -> HeadingSample? in
                    guard case .att(let att) = message, let heading = GNSSHeading.reported(from: att) else {
                        return nil
                    }
                    return GNSSHeading.sample(heading, accuracy: GNSSHeading.accuracy, at: timestamp)
                }
            }
            guard let samples else { return }
            state.emit(samples.map { .sample($0) }, run)
        case .closed(let reason):
            let current = state.withLock { state -> Bool in
                guard state.isCurrent(run), state.attempt == attempt else { return false }
                state.channel = nil
                state.attempt += 1
                state.decoder = GPSDDecoder()
                let delay = backoff.delay(afterFailures: state.failures)
                state.failures += 1
                state.retry = scheduler.schedule(at: scheduler.now + delay) { [weak self] in self?.connect(run) }
                return true
            }
            guard current else { return }
            logger.warning("gpsd heading connection closed", metadata: ["reason": "\(reason)"])
            state.emit(.unavailable(reason: "gpsd at \(endpoint): \(reason)"), run)
        }
    }

    private func channel(run: Int, attempt: Int) -> (any GPSDChannel)? {
        state.withLock { $0.isCurrent(run) && $0.attempt == attempt ? $0.channel : nil }
    }

    /// `connected` came before `open` returned the channel: send WATCH once it is stored.
    private func pendingWatch(run: Int, attempt: Int) {
        _ = scheduler.schedule(at: scheduler.now) { [weak self] in
            self?.channel(run: run, attempt: attempt)?.send(#"?WATCH={"enable":true,"json":true};"#)
        }
    }
}

extension GPSDHeadingSource.State {
    /// Starts a new attempt: events of older connections are ignored from now on.
    fileprivate mutating func reset() -> (any GPSDChannel)? {
        attempt += 1
        retry?.cancel()
        retry = nil
        decoder = GPSDDecoder()
        let old = channel
        channel = nil
        return old
    }
}

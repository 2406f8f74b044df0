import Foundation
import CoreLocationEngine
import Logging
import Synchronization

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
    private let state = Mutex(State())
    /// Held while events are delivered and by `stop()`, so nothing is delivered after `stop()`
    /// returns. Recursive so that a handler may call `stop()`.
    private let delivery = NSRecursiveLock()

    fileprivate struct State {
        var generation = 0
        var handler: (@Sendable (HeadingSourceEvent) -> Void)?
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
        delivery.lock()
        defer { delivery.unlock() }
        let old = state.withLock { state -> (any GPSDChannel)? in
            state.handler = handler
            state.failures = 0
            return state.reset()
        }
        old?.close()
        connect()
    }

    public func stop() {
        delivery.lock()
        defer { delivery.unlock() }
        let old = state.withLock { state -> (any GPSDChannel)? in
            state.handler = nil
            return state.reset()
        }
        old?.close()
    }

    private func connect() {
        let generation = state.withLock { $0.generation }
        let channel = transport.open(endpoint) { [weak self] event in self?.receive(event, generation: generation) }
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation else { return true }
            state.channel = channel
            return false
        }
        if stale { channel.close() }
    }

    private func receive(_ event: GPSDTransportEvent, generation: Int) {
        delivery.lock()
        defer { delivery.unlock() }
        switch event {
        case .connected:
            // Sent through the handler's own channel reference: `open` may not have returned yet.
            let channel = state.withLock { $0.generation == generation ? $0.channel : nil }
            channel?.send(#"?WATCH={"enable":true,"json":true};"#)
            if channel == nil { pendingWatch(generation) }
        case .bytes(let bytes):
            let timestamp = scheduler.wallNow
            let (handler, samples) = state.withLock {
                state -> ((@Sendable (HeadingSourceEvent) -> Void)?, [HeadingSample]) in
                guard state.generation == generation, let handler = state.handler else { return (nil, []) }
                state.failures = 0
                let samples = state.decoder.feed(bytes).compactMap { message -> HeadingSample? in
                    guard case .att(let att) = message, let heading = GNSSHeading.reported(from: att) else {
                        return nil
                    }
                    return GNSSHeading.sample(heading, accuracy: GNSSHeading.accuracy, at: timestamp)
                }
                return (handler, samples)
            }
            guard let handler else { return }
            for sample in samples { handler(.sample(sample)) }
        case .closed(let reason):
            let handler = state.withLock { state -> (@Sendable (HeadingSourceEvent) -> Void)? in
                guard state.generation == generation, let handler = state.handler else { return nil }
                state.channel = nil
                state.generation += 1
                state.decoder = GPSDDecoder()
                let delay = backoff.delay(afterFailures: state.failures)
                state.failures += 1
                state.retry = scheduler.schedule(at: scheduler.now + delay) { [weak self] in self?.connect() }
                return handler
            }
            guard let handler else { return }
            logger.warning("gpsd heading connection closed", metadata: ["reason": "\(reason)"])
            handler(.unavailable(reason: "gpsd at \(endpoint): \(reason)"))
        }
    }

    /// `connected` came before `open` returned the channel: send WATCH once it is stored.
    private func pendingWatch(_ generation: Int) {
        _ = scheduler.schedule(at: scheduler.now) { [weak self] in
            guard let self else { return }
            let channel = state.withLock { $0.generation == generation ? $0.channel : nil }
            channel?.send(#"?WATCH={"enable":true,"json":true};"#)
        }
    }
}

extension GPSDHeadingSource.State {
    /// Starts a new generation: events of older connections are ignored from now on.
    fileprivate mutating func reset() -> (any GPSDChannel)? {
        generation += 1
        retry?.cancel()
        retry = nil
        decoder = GPSDDecoder()
        let old = channel
        channel = nil
        return old
    }
}

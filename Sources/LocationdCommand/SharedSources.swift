import CoreLocationEngine
import CoreLocationSources
import Foundation
import Synchronization

/// The daemon's receivers, shared by every app: each app's engine sees a proxy per source; the
/// real source opens with its first proxy started and closes after the last stopped. One receiver
/// serves every app (docs/decisions/0010-locationd.md).
final class SharedSources: Sendable {
    private struct Hub {
        var listeners: [UInt64: @Sendable (SourceEvent) -> Void] = [:] {
            didSet { listenerList = Array(listeners.values) }
        }
        /// `listeners`' values, made at each change of them, not at each event (decision 0097).
        var listenerList: [@Sendable (SourceEvent) -> Void] = []
        var poweredSince: Double?
        var onTime: Double = 0
        /// The latest event while powered (nil: nothing heard since it was powered).
        var latest: SourceEvent?
        var lastFixAt: Double?
    }

    /// One source as `locationctl sources` shows it.
    struct Report {
        var descriptor: SourceDescriptor
        var powered: Bool
        var onTime: Double
        var state: String
        var detail: String?
        var lastFix: Double?
        /// The device of the last fix, for a source that gathers from several (`FixOriginReporting`).
        var origin: String?
    }

    let sources: [any LocationSource]
    /// The sources that keep satellite views, found once (a dynamic cast per source per fix was on the way to the
    /// first gpsd client; decision 0097).
    private let satelliteReporters: [any SatelliteViewReporting]
    private let hubs: Mutex<[SourceID: Hub]>
    private let nextListener = Atomic<UInt64>(0)
    private let clock: @Sendable () -> Double
    /// The last satellite view looked up, by the time of its fix: every gpsd client of one epoch asks for the same.
    private let lastView = Mutex<(fixTime: Date, view: SatelliteView?)?>(nil)

    init(_ sources: [any LocationSource], clock: @escaping @Sendable () -> Double) {
        self.sources = sources
        self.satelliteReporters = sources.compactMap { $0 as? any SatelliteViewReporting }
        self.clock = clock
        var hubs: [SourceID: Hub] = [:]
        for source in sources { hubs[source.descriptor.id] = Hub() }
        self.hubs = Mutex(hubs)
    }

    /// Fresh proxies for one app's engine.
    func proxies() -> [any LocationSource] {
        sources.map { SourceProxy(source: $0, shared: self) }
    }

    /// Which sources are open, for how long they have been (seconds), and what each said last: a
    /// source that is not there yet (gpsd not started, receiver unplugged) reads `unavailable`
    /// with its reason and is retried by the source itself while powered.
    func report() -> [Report] {
        let now = clock()
        // Asked before the hubs' lock: a source may hold its own lock while it hands an event to a hub.
        let origins = sources.map(\.fixOrigin)
        return hubs.withLock { hubs in
            zip(sources, origins).map { source, origin in
                let hub = hubs[source.descriptor.id] ?? Hub()
                let current = hub.poweredSince.map { now - $0 } ?? 0
                var state = "off"
                var detail: String?
                if hub.poweredSince != nil {
                    switch hub.latest {
                    case nil: state = "waiting"
                    case .fix?, .pressure?, .inertial?: state = "receiving"
                    case let .unavailable(reason)?:
                        state = "unavailable"
                        detail = reason
                    case .finished?: state = "finished"
                    }
                }
                return Report(
                    descriptor: source.descriptor, powered: hub.poweredSince != nil, onTime: hub.onTime + current,
                    state: state, detail: detail, lastFix: hub.lastFixAt, origin: origin)
            }
        }
    }

    func start(_ source: any LocationSource, _ handler: @escaping @Sendable (SourceEvent) -> Void) -> UInt64 {
        let token = nextListener.add(1, ordering: .relaxed).newValue
        let id = source.descriptor.id
        let now = clock()
        let opens = hubs.withLock { hubs -> Bool in
            hubs[id, default: Hub()].listeners[token] = handler
            guard hubs[id]?.poweredSince == nil else { return false }
            hubs[id]?.poweredSince = now
            hubs[id]?.latest = nil
            return true
        }
        if opens {
            source.start { [weak self] event in self?.broadcast(event, from: id) }
        }
        return token
    }

    func stop(_ source: any LocationSource, token: UInt64) {
        let id = source.descriptor.id
        let now = clock()
        let closes = hubs.withLock { hubs -> Bool in
            hubs[id]?.listeners[token] = nil
            guard let hub = hubs[id], hub.listeners.isEmpty, let since = hub.poweredSince else { return false }
            hubs[id]?.onTime += now - since
            hubs[id]?.poweredSince = nil
            return true
        }
        if closes { source.stop() }
    }

    /// The satellites of the receiver that produced `fix` (decision 0089), nil when no receiver did (a network, IP
    /// or simulated fix; a receiver that lists none) or it no longer keeps that fix's.
    func satelliteView(for fix: Fix) -> SatelliteView? {
        if let last = lastView.withLock({ $0 }), last.fixTime == fix.timestamp { return last.view }
        var found: SatelliteView?
        for source in satelliteReporters {
            found = source.satelliteView(for: fix.timestamp)
            if found != nil { break }
        }
        lastView.withLock { $0 = (fix.timestamp, found) }
        return found
    }

    /// Hands `listener` the sentences of every source that relays them (a live NMEA input; decision 0090), from now
    /// until the tokens are given back to `stopRelaying`; none when no source relays.
    func relaySentences(_ listener: @escaping @Sendable (String) -> Void) -> [(any SentenceRelaying, UInt64)] {
        sources.compactMap { source in
            guard let relaying = source as? any SentenceRelaying, relaying.relaysSentences else { return nil }
            return (relaying, relaying.addSentenceListener(listener))
        }
    }

    func stopRelaying(_ tokens: [(any SentenceRelaying, UInt64)]) {
        for (source, token) in tokens { source.removeSentenceListener(token) }
    }

    private func broadcast(_ event: SourceEvent, from id: SourceID) {
        let now = clock()
        let listeners = hubs.withLock { hubs -> [@Sendable (SourceEvent) -> Void] in
            // One lookup of the source's id, not one per field.
            guard let index = hubs.index(forKey: id), hubs.values[index].poweredSince != nil else { return [] }
            hubs.values[index].latest = event
            if case .fix = event { hubs.values[index].lastFixAt = now }
            return hubs.values[index].listenerList
        }
        for listener in listeners { listener(event) }
    }
}

/// One app engine's view of a shared source.
final class SourceProxy: LocationSource {
    let source: any LocationSource
    let shared: SharedSources
    private let token = Mutex<UInt64?>(nil)

    init(source: any LocationSource, shared: SharedSources) {
        self.source = source
        self.shared = shared
    }

    var descriptor: SourceDescriptor { source.descriptor }

    func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        let previous = token.withLock { $0 }
        if let previous { shared.stop(source, token: previous) }
        let new = shared.start(source, handler)
        token.withLock { $0 = new }
    }

    func stop() {
        guard let current = token.withLock({ value -> UInt64? in
            defer { value = nil }
            return value
        }) else { return }
        shared.stop(source, token: current)
    }
}

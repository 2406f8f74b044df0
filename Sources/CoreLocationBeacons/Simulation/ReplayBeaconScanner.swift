import CoreLocationSources
import Foundation
import Synchronization

/// Replays recorded advertisements on a `Scheduler` (`ManualScheduler` in tests): the recording starts when
/// the first subscriber arrives and plays once (or in a loop); always available.
public final class ReplayBeaconScanner: BeaconScanner, ScanningLifecycle {
    private struct State {
        var subscribers: BeaconSubscribers?
        var work: (any ScheduledWork)?
        var index = 0
        var origin = 0.0
    }

    private let adverts: [RecordedAdvert]
    private let scheduler: any Scheduler
    private let loops: Bool
    private let state = Mutex(State())

    public init(adverts: [RecordedAdvert], scheduler: any Scheduler, loops: Bool = false) {
        self.adverts = adverts
        self.scheduler = scheduler
        self.loops = loops
    }

    /// Reads a recording (`RecordedAdvert.parse`).
    public convenience init(contentsOf url: URL, scheduler: any Scheduler, loops: Bool = false) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        self.init(adverts: try RecordedAdvert.parse(text), scheduler: scheduler, loops: loops)
    }

    public var isAvailable: Bool { true }

    public func checkAvailability(timeout: Duration) -> Bool { true }

    private var subscribers: BeaconSubscribers {
        state.withLock { BeaconSubscribers.stored(in: &$0.subscribers, for: self) }
    }

    public func subscribe(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription {
        let subscription = subscribers.add(handler)
        handler(.availability(true))
        return subscription
    }

    func beginScanning() {
        state.withLock {
            $0.index = 0
            $0.origin = scheduler.now
        }
        scheduleNext()
    }

    func endScanning() {
        state.withLock {
            $0.work?.cancel()
            $0.work = nil
        }
    }

    private func scheduleNext() {
        guard !adverts.isEmpty else { return }
        let deadline: Double? = state.withLock { state in
            if state.index >= adverts.count {
                guard loops, let last = adverts.last else { return nil }
                state.origin += last.t + 1
                state.index = 0
            }
            return state.origin + adverts[state.index].t
        }
        guard let deadline else { return }
        let work = scheduler.schedule(at: deadline) { [weak self] in self?.fire() }
        state.withLock { $0.work = work }
    }

    private func fire() {
        let (advert, subscribers) = state.withLock { state -> (RecordedAdvert?, BeaconSubscribers?) in
            guard state.index < adverts.count else { return (nil, nil) }
            defer { state.index += 1 }
            return (adverts[state.index], state.subscribers)
        }
        if let advert, let subscribers, let advertisement = try? advert.advertisement() {
            subscribers.send(.advertisement(advertisement))
        }
        scheduleNext()
    }
}

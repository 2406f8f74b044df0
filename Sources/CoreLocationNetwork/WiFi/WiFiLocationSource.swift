import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// Wi-Fi positioning as a location source: every `interval` seconds while powered, NetworkManager's scan goes
/// to the geolocate service (through `WiFiGeolocator`: consent, filter, cache, rate limit) and the answer
/// becomes a fix. When Wi-Fi gives nothing (no consent, too few access points, service failure, no
/// NetworkManager) and an IP source is given, its fix is reported instead, so the source still answers at
/// IP accuracy; with neither, `unavailable` says why. When the scanner can tell (NetworkManager's
/// AccessPointAdded/AccessPointRemoved and LastScan signals), a changed scan is sent `settle` seconds after the last
/// change of a burst (NetworkManager reports a scan's access points one by one; at most 5 × `settle` after the first)
/// instead of at the next interval; changes arriving during an attempt make one more attempt after it, and an attempt a change caused that
/// the rate limit holds back reports nothing (the last fix stands; no fallback fix for a scan not yet asked about).
public final class WiFiLocationSource: LocationSource {
    public let descriptor: SourceDescriptor
    private let scanner: any WiFiScanner
    private let geolocator: WiFiGeolocator
    private let fallback: IPLocationSource?
    private let scheduler: any Scheduler
    private let interval: Double
    private let settle: Double
    private let logger: Logger

    private struct State {
        var timer: (any ScheduledWork)?
        var lastProblem: String?
        var lastProblemCode: NetworkSourceError.Code?
        var lastWasFallback = false
        var watch: WiFiScanWatch?
        var inFlight = false
        var changedDuringAttempt = false
        /// The pending "scan changed" attempt and when the burst began.
        var settleTimer: (any ScheduledWork)?
        var burstStart: Double?
    }

    private let state = SourceRun(State())

    /// Expected accuracy 100 m (a typical Ichnaea Wi-Fi answer); power: the radio is on anyway, a request a minute.
    public init(
        id: SourceID = SourceID("wifi"), scanner: any WiFiScanner, geolocator: WiFiGeolocator,
        fallback: IPLocationSource? = nil, scheduler: any Scheduler, interval: Double = 30, settle: Double = 0.5,
        logger: Logger = Logger(label: "corelocation.wifi")
    ) {
        descriptor = SourceDescriptor(id: id, kind: "wifi", expectedAccuracy: 100, powerCost: 5, isSimulated: false)
        self.scanner = scanner
        self.geolocator = geolocator
        self.fallback = fallback
        self.scheduler = scheduler
        self.interval = interval
        self.settle = settle
        self.logger = logger
    }

    /// Why the last attempt gave no Wi-Fi fix (nil: it did), and whether the IP fallback answered instead.
    public var status: (problem: String?, usedFallback: Bool) {
        state.withLock { ($0.lastProblem, $0.lastWasFallback) }
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        tick(state.start(handler))
    }

    public func stop() {
        let (timer, settleTimer, watch) = state.stop { state in
            state.inFlight = false
            state.changedDuringAttempt = false
            state.burstStart = nil
            defer {
                state.timer = nil
                state.settleTimer = nil
                state.watch = nil
            }
            return (state.timer, state.settleTimer, state.watch)
        }
        timer?.cancel()
        settleTimer?.cancel()
        watch?.cancel()
    }

    /// One attempt now: the Wi-Fi fix, else the fallback's, else the reason.
    public func locateOnce() async -> SourceEvent {
        do {
            let scan = try await scanner.scan()
            let reply = try await geolocator.locate(scan)
            state.withLock {
                $0.lastProblem = nil
                $0.lastProblemCode = nil
                $0.lastWasFallback = false
            }
            return .fix(
                Fix(
                    latitude: reply.location.lat, longitude: reply.location.lng, horizontalAccuracy: reply.accuracy,
                    timestamp: scheduler.wallNow))
        } catch {
            let problem = "\(error)"
            let code = (error as? NetworkSourceError)?.code
            state.withLock { $0.lastProblemCode = code }
            logger.info("Wi-Fi location unavailable", metadata: ["reason": "\(problem)"])
            if let fallback, let location = try? fallback.locate() {
                state.withLock {
                    $0.lastProblem = problem
                    $0.lastWasFallback = true
                }
                return .fix(
                    Fix(
                        latitude: location.latitude, longitude: location.longitude,
                        horizontalAccuracy: location.horizontalAccuracy, timestamp: scheduler.wallNow))
            }
            state.withLock {
                $0.lastProblem = problem
                $0.lastWasFallback = false
            }
            return .unavailable(reason: "Wi-Fi: \(problem)")
        }
    }

    /// The scanner says the access points changed (on the D-Bus loop thread): attempt once the burst settles.
    private func scanChanged(_ generation: Int) {
        let now = scheduler.now
        let (previous, due) = state.withLock { state -> ((any ScheduledWork)?, Double?) in
            guard state.generation == generation, state.handler != nil else { return (nil, nil) }
            let start = state.burstStart ?? now
            state.burstStart = start
            defer { state.settleTimer = nil }
            return (state.settleTimer, min(now + settle, start + 5 * settle))
        }
        previous?.cancel()
        guard let due else { return }
        let timer = scheduler.schedule(at: due) { [weak self] in self?.settled(generation) }
        let stale = state.withLock { state -> (any ScheduledWork)? in
            guard state.generation == generation, state.settleTimer == nil else { return timer }
            state.settleTimer = timer
            return nil
        }
        stale?.cancel()
    }

    /// A burst of changes is over: attempt now, or once more after the attempt under way.
    private func settled(_ generation: Int) {
        let timer = state.withLock { state -> (any ScheduledWork)?? in
            guard state.generation == generation, state.handler != nil else { return nil }
            state.settleTimer = nil
            state.burstStart = nil
            if state.inFlight {
                state.changedDuringAttempt = true
                return nil
            }
            defer { state.timer = nil }
            return .some(state.timer)
        }
        guard let timer else { return }
        timer?.cancel()
        tick(generation, becauseOfChange: true)
    }

    private func tick(_ generation: Int, becauseOfChange: Bool = false) {
        let proceed = state.withLock { state -> Bool in
            guard state.generation == generation, !state.inFlight else { return false }
            state.inFlight = true
            return true
        }
        guard proceed else { return }
        Task {
            let needsWatch = state.withLock { $0.generation == generation && $0.watch == nil }
            if needsWatch, let watch = await scanner.watchChanges({ [weak self] in self?.scanChanged(generation) }) {
                let stale = state.withLock { state -> WiFiScanWatch? in
                    guard state.generation == generation, state.watch == nil else { return watch }
                    state.watch = watch
                    return nil
                }
                stale?.cancel()
            }
            let event = await locateOnce()
            let (handler, again) = state.withLock { state -> ((@Sendable (SourceEvent) -> Void)?, Bool) in
                guard state.generation == generation else { return (nil, false) }
                state.inFlight = false
                defer { state.changedDuringAttempt = false }
                return (state.handler, state.changedDuringAttempt)
            }
            guard let handler else { return }
            let heldBack = becauseOfChange && status.problem != nil
                && state.withLock { $0.lastProblemCode == .rateLimited }
            if !heldBack { handler(event) }
            if again {
                tick(generation, becauseOfChange: true)
                return
            }
            let timer = scheduler.schedule(at: scheduler.now + interval) { [weak self] in self?.tick(generation) }
            let stale = state.withLock { state -> (any ScheduledWork)? in
                guard state.generation == generation else { return timer }
                state.timer = timer
                return nil
            }
            stale?.cancel()
        }
    }
}

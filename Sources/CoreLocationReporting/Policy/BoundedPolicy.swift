import CoreLocationEngine
import Foundation

/// The default reporting policy: an error-bounded track while moving, a freshness bound, and
/// silence while settled (issue 12; parameters in docs/decisions/0022).
///
/// A state machine fed with fixes (their own timestamps are its clock): `handle(_:)` returns the
/// upload decisions, `finish()` the last one at the end of input. Poor fixes (`FixScreen`) change
/// nothing. While *moving*:
/// - `OnlineSimplifier` keeps every good fix within `epsilon` (SED) of the uploaded track;
/// - the freshness bound: when the current fix lies more than `freshness` metres from the newest
///   uploaded point, it is uploaded at once (the simplifier's window is valid up to it, so the ε
///   bound still holds).
///
/// *Settling* uses the project's own detectors, fed the same good fixes: automatic pausing's
/// stillness rule (`StationaryDetector` with the engine's 25 m, still for `AutoPausePolicy`'s time
/// of the activity type: 180 s for `other`) and the visits service's `VisitDetector` (an arrival
/// visit). Whichever fires first settles the user: the current fix is uploaded as the *arrival*
/// report (the segment up to it is valid, so ε holds on the approach), then nothing is uploaded
/// (but a `heartbeat` at most every `heartbeatInterval`, off by default) until the user leaves the
/// stationary region: a fix clearly outside `regionRadius` (100 m, the engine's; distance minus
/// accuracy), or — with the freshness bound on — simply farther than `freshness` metres, or a
/// departure visit. Then the *departure* report is the earliest recent fix from which a single
/// segment to the current fix keeps every fix between within ε (a backward opening window: about
/// when the user started to move), with its own time, and the fixes since (the walk out) feed the
/// simplifier from it, so ε holds on them too.
public struct BoundedPolicy: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// SED bound, metres (10; 25 as the low-power setting).
        public var epsilon = 10.0
        /// Freshness bound, metres; nil = off.
        public var freshness: Double? = 50
        /// Seconds between heartbeats while settled; nil = none. At least 3600.
        public var heartbeatInterval: Double?
        /// `CLActivityType` raw value for the stillness time (`AutoPausePolicy.forActivity`).
        public var activityType = 1
        /// The engine's automatic-pause radius, metres.
        public var stillRadius = 25.0
        /// The stationary region's radius, metres (the engine's `pauseRegionRadius`).
        public var regionRadius = 100.0
        public var screen = FixScreen()

        public init() {}
    }

    public enum Phase: Sendable, Hashable {
        case moving
        case settled
    }

    public let parameters: Parameters
    private var screen: FixScreen
    private var simplifier: OnlineSimplifier
    private var stationary: StationaryDetector
    private var visits = VisitDetector()
    private let stillFor: Double
    private var movingSince: Double?
    private var newest: ReportPoint?
    private var place: ReportPoint?
    private var recent: [ReportPoint] = []
    private var lastReport: Double = 0

    public private(set) var phase = Phase.moving
    /// Fixes the screen turned away.
    public private(set) var poorFixes = 0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        screen = parameters.screen
        simplifier = OnlineSimplifier(epsilon: parameters.epsilon)
        stationary = StationaryDetector(window: 0, radius: parameters.stillRadius)
        stillFor = AutoPausePolicy.forActivity(parameters.activityType).stillFor
    }

    /// Whether the last fix handled was a good one (for summaries).
    public private(set) var lastFixWasGood = false

    public mutating func handle(_ fix: Fix) -> [ReportDecision] {
        if case .poor = screen.screen(fix) {
            poorFixes += 1
            lastFixWasGood = false
            return []
        }
        lastFixWasGood = true
        let point = ReportPoint(fix)
        let now = point.time
        stationary.observe(fix, at: now)
        let events = visits.observe(fix)
        if movingSince == nil { movingSince = now }
        switch phase {
        case .moving:
            return whileMoving(point, arrived: events.contains { $0.departure == nil })
        case .settled:
            return whileSettled(point, departed: events.contains { $0.departure != nil })
        }
    }

    /// At the end of input: uploads the simplifier's last fix while moving.
    public mutating func finish() -> [ReportDecision] {
        guard phase == .moving, let last = simplifier.flush() else { return [] }
        return [decision(.track, last, at: last, "end of input")]
    }

    private mutating func whileMoving(_ point: ReportPoint, arrived: Bool) -> [ReportDecision] {
        var out = simplifier.add(point).map {
            decision(.track, $0, at: point, $0 == point ? "first fix" : "the track would leave ε at the next fix")
        }
        let still = stationary.stillSince.map { point.time - max($0, movingSince ?? $0) >= stillFor } ?? false
        if still || arrived {
            // The window is valid up to this fix: uploading it keeps ε on the approach.
            if simplifier.candidate == point { _ = simplifier.flush() } else { simplifier.restart(at: point) }
            out.removeAll { $0.point == point }
            let why = still ? "settled: still for \(Int(stillFor)) s" : "settled: arrival visit"
            out.append(decision(.arrival, point, at: point, why))
            phase = .settled
            place = point
            recent.removeAll()
            return out
        }
        if let freshness = parameters.freshness, let newest, SynchronizedDistance.distance(newest, point) > freshness,
            simplifier.candidate == point, let flushed = simplifier.flush()
        {
            let metres = Int(SynchronizedDistance.distance(newest, point).rounded())
            out.append(decision(.track, flushed, at: point, "freshness: \(metres) m from the newest report"))
        }
        return out
    }

    private mutating func whileSettled(_ point: ReportPoint, departed: Bool) -> [ReportDecision] {
        guard let place else { return [] }
        let distance = SynchronizedDistance.distance(place, point)
        let left: Bool
        if let freshness = parameters.freshness {
            left = distance > min(freshness, parameters.regionRadius)
        } else {
            left = distance - point.horizontalAccuracy > max(parameters.regionRadius, 2 * point.horizontalAccuracy)
        }
        if left || departed {
            phase = .moving
            movingSince = point.time
            // The departure: the earliest recent fix from which one segment to this fix keeps every fix
            // between within ε (a backward opening window), i.e. about when the user started to move.
            var start = recent.count
            var index = recent.count - 1
            while index >= 0 {
                let candidate = recent[index]
                let valid = recent[(index + 1)...].allSatisfy {
                    SynchronizedDistance.sed(of: $0, from: candidate, to: point) <= parameters.epsilon
                }
                guard valid else { break }
                start = index
                index -= 1
            }
            let departure = start < recent.count ? recent[start] : place
            let walkOut = start < recent.count ? Array(recent[(start + 1)...]) : []
            let stay = Array(recent[..<min(start, recent.count)])
            recent.removeAll()
            var out: [ReportDecision] = []
            // Settled by mistake (a slow walk that looked still): what came between the arrival and the
            // departure was movement, and it too must lie within ε of the uploaded track.
            if stay.contains(where: { SynchronizedDistance.sed(of: $0, from: place, to: departure) > parameters.epsilon }) {
                simplifier.restart(at: place)
                for fix in stay + [departure] {
                    out += simplifier.add(fix).filter { $0 != departure }.map {
                        decision(.track, $0, at: point, "the stay was not still")
                    }
                }
            }
            out.append(decision(.departure, departure, at: point, "left: \(Int(distance.rounded())) m from the place"))
            simplifier.restart(at: departure)
            for fix in walkOut + [point] {
                out += simplifier.add(fix).map { decision(.track, $0, at: point, "the walk out would leave ε") }
            }
            if let freshness = parameters.freshness, let newest,
                SynchronizedDistance.distance(newest, point) > freshness, let flushed = simplifier.flush()
            {
                out.append(decision(.track, flushed, at: point, "freshness after leaving"))
            }
            return out
        }
        recent.append(point)
        if recent.count > Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit) }
        if let interval = parameters.heartbeatInterval, point.time - lastReport >= max(interval, 3600) {
            var beat = place
            beat.timestamp = point.timestamp
            return [decision(.heartbeat, beat, at: point, "heartbeat")]
        }
        return []
    }

    /// Fixes kept while settled to place the departure (10 min at 1 Hz).
    static let recentLimit = 600

    private mutating func decision(_ kind: ReportKind, _ point: ReportPoint, at now: ReportPoint, _ why: String)
        -> ReportDecision
    {
        newest = point
        lastReport = now.time
        return ReportDecision(kind: kind, point: point, decidedAt: now.timestamp, reason: why)
    }
}

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
/// visit), and a *dwell* rule of its own: the good fixes of the last `dwellTime` (240 s, the window
/// full) all within `dwellRadius` (30 m) of their mean, and no faster than `dwellSpeed` (0.2 m/s) net
/// from the first to the last. The engine's stillness measures from one fix, so a receiver whose
/// error wanders by 10–15 m, or a user who dawdles, is not still until the visit detector's 5 minutes
/// have passed, and the arrival then falls after them; the mean is steadier than any one fix
/// (decision 0046). A fourth rule needs no fix at all: a *silent receiver* (no fix for `silence`, 120 s,
/// after a good fix no faster than `silenceSpeed`, walking pace) settles the user at that last fix, at
/// the moment the silence ran out (`tick(at:)`, when `nextTick` has come). A receiver goes quiet as its
/// user walks indoors, and a logger that records by distance (the Garmin logs of the benchmark: a fix
/// every ~10 m) says nothing while its user stands still; either way the next fix, near the place or
/// not, decides as below (decision 0054). Whichever fires first
/// settles the user: the current fix is uploaded as the *arrival*
/// report (the segment up to it is valid, so ε holds on the approach), then nothing is uploaded
/// (but a `heartbeat` at most every `heartbeatInterval`, off by default) until the user leaves.
/// Leaving is measured from the place's centre (`StayCentre`: the mean of the fixes seen there,
/// seeded with the arrival visit's centre), not from the arrival report's fix, which a slow walk can
/// put at the edge of the place (decision 0046):
/// - a fix clearly outside `regionRadius` of the centre (100 m, the engine's; distance minus
///   accuracy), or a departure visit;
/// - with the freshness bound on, also any fix farther than `freshness` metres from the arrival
///   report: the bound is owed to the first fix of a walk out, and no rule on one fix tells it from
///   a dawdle that strays as far (decision 0046 measured one that waited for 0.5 m/s away from the
///   centre: quieter, but the bound broken on 9 more moving fixes of the real tracks).
///
/// Then the *departure* report is the earliest recent fix from which a single
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
        /// Metres from their mean within which the fixes of `dwellTime` count as a dwell: the visits
        /// detector's core radius, chosen there because 50 m let slow walking on hairpins count as
        /// stays; room for a receiver whose error wanders by 10–15 m (correlated over a minute, so it
        /// does not average out in a few minutes).
        public var dwellRadius = 30.0
        /// Seconds of fixes the dwell rule looks at, and m/s net over them it allows. A sweep on the
        /// real and synthetic tracks of Benchmarks/reporter (decision 0046): 180 s or 0.3 m/s settled
        /// slow hikers on the Garmin logs three times as often; 240 s and 0.2 m/s still settle 30 of
        /// the 32 synthetic stays the receiver saw within their first 5 minutes.
        public var dwellTime = 240.0
        public var dwellSpeed = 0.2
        /// Seconds without a fix after which a user last seen no faster than `silenceSpeed` is settled at
        /// the last good fix; nil = off. 120 s leaves the arrival inside a stay's first 5 minutes when the
        /// receiver goes quiet within 3 minutes of arriving, and is longer than a logger that records
        /// every 10 m takes between fixes at 0.1 m/s (decision 0054).
        public var silence: Double? = 120
        /// m/s: the last good fix's speed (or, without one, the speed from the good fix before it) above
        /// which a silence is a tunnel, not an arrival. A brisk walk (2 m/s on the real tracks' last fix
        /// before a stay) to a car rolling into a car park.
        public var silenceSpeed = 5.0
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
    private var centre: StayCentre?
    /// When the evidence that settled the user began (the stillness or dwell window's start, the visit's arrival).
    private var settledSince = 0.0
    private var recent: [ReportPoint] = []
    /// Good fixes since moving, back to the newest one at least `dwellTime` old (the dwell rule's window).
    private var dwell: [ReportPoint] = []
    private var lastReport: Double = 0
    /// The newest good fix, and the one before it (the silence rule's speed, when the fix has none).
    private var lastGood: ReportPoint?
    private var previousGood: ReportPoint?

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
        (previousGood, lastGood) = (lastGood, point)
        let now = point.time
        stationary.observe(fix, at: now)
        let events = visits.observe(fix)
        if movingSince == nil { movingSince = now }
        switch phase {
        case .moving:
            return whileMoving(point, arrival: events.first { $0.departure == nil })
        case .settled:
            return whileSettled(point, departed: events.contains { $0.departure != nil })
        }
    }

    /// When the silence rule would settle the user if no good fix came first: `tick(at:)` is owed then.
    /// Nil while settled, with the rule off, or after a fix faster than `silenceSpeed`.
    public var nextTick: Date? {
        guard phase == .moving, let silence = parameters.silence, let last = lastGood else { return nil }
        var speed = last.speed
        if speed < 0, let previous = previousGood, last.time > previous.time {
            speed = SynchronizedDistance.distance(previous, last) / (last.time - previous.time)
        }
        guard speed <= parameters.silenceSpeed else { return nil }
        return last.timestamp.addingTimeInterval(silence)
    }

    /// Time passing with no fix: at or after `nextTick`, settles the user at the last good fix (the
    /// arrival report, decided at `nextTick`); otherwise nothing.
    public mutating func tick(at now: Date) -> [ReportDecision] {
        guard let deadline = nextTick, now >= deadline, let last = lastGood, let silence = parameters.silence else {
            return []
        }
        let arrival = decision(.arrival, last, at: deadline, "settled: no fix for \(Int(silence)) s")
        settle(at: last, since: last.time, centre: StayCentre(seed: last, weight: silence))
        return [arrival]
    }

    /// At the end of input: uploads the simplifier's last fix while moving. Settled for less than the
    /// visits detector's minimum stay, the fixes since the arrival are traced as movement, as at a
    /// departure from a stay that was not still: a pause the silence rule settled may end the input.
    public mutating func finish() -> [ReportDecision] {
        if phase == .settled, let place, let centre, let last = recent.last,
            last.time - settledSince < visits.parameters.minimumStay,
            SynchronizedDistance.distance(place, last) > parameters.epsilon
        {
            var out = retrace(Array(recent.dropLast()), from: place, to: last, centre: centre, at: last)
            out.append(decision(.track, last, at: last, "end of input, settled briefly"))
            return out
        }
        guard phase == .moving, let last = simplifier.flush() else { return [] }
        return [decision(.track, last, at: last, "end of input")]
    }

    private mutating func whileMoving(_ point: ReportPoint, arrival: Visit?) -> [ReportDecision] {
        var out = simplifier.add(point).map {
            decision(.track, $0, at: point, $0 == point ? "first fix" : "the track would leave ε at the next fix")
        }
        let still = stationary.stillSince.map { point.time - max($0, movingSince ?? $0) >= stillFor } ?? false
        dwell.append(point)
        while dwell.count > 1, point.time - dwell[1].time >= parameters.dwellTime { dwell.removeFirst() }
        let dwelt = !still && dwelling(point)
        if still || dwelt || arrival != nil {
            out.removeAll { $0.point == point }
            let why = still
                ? "settled: still for \(Int(stillFor)) s"
                : dwelt
                    ? "settled: within \(Int(parameters.dwellRadius)) m for \(Int(parameters.dwellTime)) s"
                    : "settled: arrival visit"
            out.append(decision(.arrival, point, at: point, why))
            // The centre starts from the evidence that settled the user, weighted by the time it spans:
            // the dwell window's mean, the visit's centre, or this fix (a stillness settle's fixes all
            // lay within `stillRadius` of it).
            if dwelt, let mean = StayCentre(dwell) {
                settle(at: point, since: point.time - parameters.dwellTime, centre: StayCentre(
                    latitude: mean.latitude, longitude: mean.longitude, time: point.time, weight: parameters.dwellTime))
            } else if !still, let arrival {
                let since = arrival.arrival?.timeIntervalSince1970 ?? point.time - visits.parameters.minimumStay
                settle(at: point, since: since, centre: StayCentre(
                    latitude: arrival.latitude, longitude: arrival.longitude, time: point.time,
                    weight: point.time - since))
            } else {
                settle(at: point, since: point.time - stillFor, centre: StayCentre(seed: point, weight: stillFor))
            }
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

    /// Enters the settled phase with `point` as the arrival report's place.
    private mutating func settle(at point: ReportPoint, since: Double, centre: StayCentre) {
        // The window is valid up to this fix: uploading it keeps ε on the approach.
        if simplifier.candidate == point { _ = simplifier.flush() } else { simplifier.restart(at: point) }
        phase = .settled
        place = point
        settledSince = since
        self.centre = centre
        recent.removeAll()
        dwell.removeAll()
    }

    private mutating func whileSettled(_ point: ReportPoint, departed: Bool) -> [ReportDecision] {
        guard let place, var centre else { return [] }
        let distance = SynchronizedDistance.distance(place, point)
        let fromCentre = centre.distance(to: point)
        var left = departed
            || fromCentre - point.horizontalAccuracy > max(parameters.regionRadius, 2 * point.horizontalAccuracy)
        if let freshness = parameters.freshness, distance > min(freshness, parameters.regionRadius) { left = true }
        if left {
            phase = .moving
            movingSince = point.time
            dwell = [point]
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
            // The fix that left ends a silence spent within `stillRadius` of it: the user has left the old
            // place and already stands at a new one, as the silence rule would have said had the user not
            // been settled meanwhile (decision 0054).
            var arrivesHere = false
            if let silence = parameters.silence, let previous = previousGood {
                arrivesHere = point.time - previous.time >= silence
                    && SynchronizedDistance.distance(previous, point) <= parameters.stillRadius
            }
            // With no recent fix (a silence settle; the receiver said nothing until the user had gone) the
            // window opens at this fix itself: the walk out's first evidence is the departure. The arrival
            // report again would tell the server nothing new, and the track from it to this fix has no fix
            // between to keep within ε (decision 0056). An arrival here keeps the old place's departure
            // apart from the new place's arrival.
            let departure = start < recent.count ? recent[start] : arrivesHere ? place : point
            let walkOut = start < recent.count ? Array(recent[(start + 1)...]) : []
            let stay = Array(recent[..<min(start, recent.count)])
            recent.removeAll()
            var out: [ReportDecision] = []
            out += retrace(stay, from: place, to: departure, centre: centre, at: point)
            let metres = "\(Int(fromCentre.rounded())) m from the place's centre"
            let why = departed ? "departure visit, \(metres)" : "left: \(metres)"
            out.append(decision(.departure, departure, at: point, why))
            simplifier.restart(at: departure)
            for fix in walkOut + [point] where fix != departure {
                out += simplifier.add(fix).map { decision(.track, $0, at: point, "the walk out would leave ε") }
            }
            if let freshness = parameters.freshness, let newest,
                SynchronizedDistance.distance(newest, point) > freshness, let flushed = simplifier.flush()
            {
                out.append(decision(.track, flushed, at: point, "freshness after leaving"))
            }
            if arrivesHere, let previous = previousGood {
                let silent = point.time - previous.time
                out.removeAll { $0.point == point }
                out.append(decision(.arrival, point, at: point, "settled: still through \(Int(silent)) s of silence"))
                settle(at: point, since: previous.time, centre: StayCentre(seed: point, weight: silent))
            }
            return out
        }
        centre.add(point)
        self.centre = centre
        recent.append(point)
        if recent.count > Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit) }
        if let interval = parameters.heartbeatInterval, point.time - lastReport >= max(interval, 3600) {
            var beat = place
            beat.timestamp = point.timestamp
            return [decision(.heartbeat, beat, at: point, "heartbeat")]
        }
        return []
    }

    /// The settled fixes between the arrival and the departure that must lie within ε of the track.
    ///
    /// Settled by mistake (a slow walk that looked still): all of them were movement, and are traced
    /// from the arrival. A real stay — it lasted the visits detector's minimum stay, counting the
    /// evidence that settled it, and twice its fixes' median distance from the centre (the *scatter*,
    /// median so that the walk out does not inflate it) is within `dwellRadius` — is not movement: its
    /// scatter is the receiver's noise, and tracing it uploaded dozens of points of noise at each
    /// departure from a place seen by a 10 m receiver (Benchmarks/reporter, synthetic tracks). Only
    /// its tail is traced, from the last fix at the place (within ε/2 of the centre, or the scatter if
    /// larger; earlier if a walk out in a line began within the scatter), uploaded as the stay's end:
    /// the segment to it from the arrival report stays at the place, and the start of the walk out,
    /// before the departure's window, is kept within ε.
    private mutating func retrace(
        _ stay: [ReportPoint], from place: ReportPoint, to departure: ReportPoint, centre: StayCentre,
        at now: ReportPoint
    ) -> [ReportDecision] {
        let epsilon = parameters.epsilon
        guard stay.contains(where: { SynchronizedDistance.sed(of: $0, from: place, to: departure) > epsilon }) else {
            return []
        }
        let distances = stay.map { centre.distance(to: $0) }.sorted()
        let scatter = 2 * distances[distances.count / 2]
        let compact = scatter <= parameters.dwellRadius
        var fixes = stay
        var start = place
        var why = "the stay was not still"
        if compact, departure.time - settledSince >= visits.parameters.minimumStay {
            let explained = max(epsilon / 2, scatter)
            guard var last = stay.lastIndex(where: { centre.distance(to: $0) <= explained }) else { return [] }
            // A walk out that began within the scatter: back from the last fix at the place while one
            // segment from there to the departure keeps every fix between within ε (as the departure's
            // own window; noise breaks a line at once).
            while last > 0, stay[last...].allSatisfy({
                SynchronizedDistance.sed(of: $0, from: stay[last - 1], to: departure) <= epsilon
            }) {
                last -= 1
            }
            fixes = Array(stay[(last + 1)...])
            start = stay[last]
            why = "the walk out"
        }
        var out: [ReportDecision] = []
        if start != place { out.append(decision(.track, start, at: now, "the stay's end")) }
        simplifier.restart(at: start)
        for fix in fixes + [departure] {
            out += simplifier.add(fix).filter { $0 != departure }.map { decision(.track, $0, at: now, why) }
        }
        return out
    }

    /// Fixes kept while settled to place the departure (10 min at 1 Hz).
    static let recentLimit = 600

    /// The dwell rule: the window spans `dwellTime`, its fixes lie within `dwellRadius` of their mean,
    /// and the net speed from its first fix to `point` is below `dwellSpeed`.
    private func dwelling(_ point: ReportPoint) -> Bool {
        guard let first = dwell.first, point.time - first.time >= parameters.dwellTime, let mean = StayCentre(dwell)
        else { return false }
        guard SynchronizedDistance.distance(first, point) / (point.time - first.time) < parameters.dwellSpeed else {
            return false
        }
        return dwell.allSatisfy { mean.distance(to: $0) <= parameters.dwellRadius }
    }

    private mutating func decision(_ kind: ReportKind, _ point: ReportPoint, at now: ReportPoint, _ why: String)
        -> ReportDecision
    {
        decision(kind, point, at: now.timestamp, why)
    }

    private mutating func decision(_ kind: ReportKind, _ point: ReportPoint, at now: Date, _ why: String)
        -> ReportDecision
    {
        newest = point
        lastReport = now.timeIntervalSince1970
        return ReportDecision(kind: kind, point: point, decidedAt: now, reason: why)
    }
}

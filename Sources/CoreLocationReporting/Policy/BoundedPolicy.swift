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
/// after a good fix no faster than `silenceSpeed`, by its own speed or, without one, net over the last
/// `silenceSpeedWindow` of fixes) settles the user at that last fix, at
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
/// A fifth way to settle, and to leave, when asked for (`Parameters.stays`, off by default), is for stays whose
/// fixes wander 20–150 m around a building (decision 0064): the engine's `StayTracker` says staying and the stay's fixes spread wider than
/// `wanderSpread`; such a stay (also one the other rules settled, once it spreads twice as wide and does not drift)
/// is left only when the tracker ends it, and its walk out is traced from when the walk, extrapolated back, left
/// the place (`walkOutStart`) — decided after the departure, so the stay stays silent and ε holds on the walk.
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
        /// Seconds of good fixes over which the speed before a silence is measured, net from the first to the last,
        /// when the fix states none (a GPX replay); 0 = the last step's. A step of a few seconds between fixes that
        /// wander 30–100 m indoors reads 5–10 m/s, a tunnel's speed, and the silence settled nothing (tuning half: 3
        /// stays whose receiver went quiet after such a step); over 30 s the wander nets out and a car does not.
        public var silenceSpeedWindow = 30.0
        public var screen = FixScreen()
        /// Stays whose fixes wander (decision 0064's third and fourth sections): the engine's `StayTracker` with these
        /// parameters settles them, tells their wander from leaving, and their walk out is traced from when it
        /// began; nil = off, the rules of decisions 0046–0057 alone (`locationctl report --no-wandering-stays`).
        /// On by default since its fixes must also not keep a direction (`wanderPersistence`): without that test
        /// the real Lyon walk's stroll round city blocks was a stay and broke ε on 94 of its moving fixes.
        public var stays: StayTracker.Parameters? = Parameters.wanderingStays

        /// The stay tracker as the reporter uses it (tuned on the tuning half, decision 0064's third section). The
        /// reporter owes no exit within seconds (a departure noticed late costs only the walk out's retrace, decided
        /// after it and traced back to when the walk began), so a fix belongs to the stay within 100–200 m of its
        /// centre (3 spreads; 100 m is the engine's region radius, the other rules' leaving distance), staying ends
        /// after 30 s outside or when the stay's fixes walk over 10 min (a wander correlated over minutes moves a
        /// shorter window's halves apart as a slow walk does), and a stay begins over 150 s (its arrival must come
        /// within the stay's first 5 minutes, after the walk in has left the window's older half), each half of the
        /// window covered by fixes.
        public static let wanderingStays: StayTracker.Parameters = {
            var stays = StayTracker.Parameters()
            stays.window = 150
            stays.stayingWindow = 600
            stays.minimumRadius = 100
            stays.maximumEnvelope = 200
            stays.departure = 30
            stays.coverEachHalf = true
            return stays
        }()
        /// Metres (RMS): a stay the tracker holds whose fixes spread wider than this is settled by the tracker and
        /// left only when it ends; a tighter one is the other rules' (decision 0046's dwell radius, halved).
        public var wanderSpread = 15.0
        /// The most a wandering stay's fixes may keep a direction (decision 0064's fourth section): the
        /// length-weighted mean cosine between successive moves of at least `wanderStep` seconds over the stay's
        /// fixes. A receiver's wander goes back and forth (near 0: each move is mostly fresh noise); a walk round
        /// city blocks keeps its direction between corners (near 1). Tuning half: 150 s windows of indoor stays
        /// p95 0.48, of moving legs p1 0.80; the real tuning hike's wide windows 0.76 and more.
        public var wanderPersistence = 0.6
        public var wanderStep = 15.0
        /// A stay the tracker holds is left before the tracker ends it when, over the tracker's window, its fixes
        /// keep a direction more than this (a walk's 150 s windows: p5 0.91, p50 1.00; a wander's p99 0.83) and
        /// have gone farther than `walkAwaySpreads` of its spread, ending as far from its centre: the tracker's
        /// envelope (up to 200 m) may reach the next place, and a walk to it is owed ε. Tuning half: 0.85 broke ε
        /// 58 times (false departures from wanders), 0.9 and 0.95 four and five times.
        public var walkAwayPersistence = 0.95
        public var walkAwaySpreads = 2.0
        /// Spreads of a stay the tracker held that its walk out is put back by: the walk's line, put back to the place,
        /// less the time the walk takes to cross this many spreads (`walkOutStart`). The place's fixes reach about two
        /// spreads (RMS) from its centre (a 2-D Gaussian's lie beyond that 2 % of the time), so a walk is surely out
        /// only there; with one spread the walk's first fixes, still inside the wander, were taken for the stay's
        /// (tuning half: 17 moving fixes beyond ε, up to 63 m, once the jump screen let such stays last to their end).
        public var walkOutSpreads = 2.0
        /// Without a walk to fit (the receiver went quiet as the user left), the walk out is traced from the last fix
        /// within this many spreads of the centre: a fix surely at the place (a fifth of the place's fixes lie that
        /// close, few of a walk's).
        public var walkOutFallbackSpreads = 0.5

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
    /// Stays whose fixes wander (decision 0064): settles the user, and tells a stay's noise from leaving.
    private var stays: StayTracker?
    /// Whether the current settle is a stay the tracker holds: left only when the tracker ends it.
    private var tracked = false
    /// While tracked: the spread (RMS, m) of the stay, and the time of the first fix of the current run outside it.
    private var wander = 0.0
    private var outsideSince: Double?
    /// When the user last left a place: the tracker's stays that began before it are not arrivals.
    private var leftAt = -Double.infinity
    private let stillFor: Double
    private var movingSince: Double?
    private var newest: ReportPoint?
    private var place: ReportPoint?
    private var centre: StayCentre?
    /// When the evidence that settled the user began (the stillness or dwell window's start, the visit's arrival).
    private var settledSince = 0.0
    private var recent: [ReportPoint] = []
    /// With the stay tracker: good fixes of its staying window, for the persistence of their moves.
    private var trail: [ReportPoint] = []
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
        stays = parameters.stays.map { StayTracker(parameters: $0) }
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
        // Fixes held as a jump that turned out to be the user's path: taken up first, decided now.
        var out: [ReportDecision] = []
        for earlier in screen.released {
            poorFixes -= 1
            out += handleGood(earlier).map {
                ReportDecision(kind: $0.kind, point: $0.point, decidedAt: fix.timestamp, reason: $0.reason)
            }
        }
        return out + handleGood(fix)
    }

    /// A fix the screen passed.
    private mutating func handleGood(_ fix: Fix) -> [ReportDecision] {
        let point = ReportPoint(fix)
        (previousGood, lastGood) = (lastGood, point)
        let now = point.time
        stationary.observe(fix, at: now)
        if let tracker = parameters.stays {
            stays?.observe(fix)
            trail.append(point)
            let kept = tracker.stayingWindow ?? tracker.window
            if let first = trail.firstIndex(where: { now - $0.time <= kept }), first > 0 { trail.removeFirst(first) }
        }
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
        if speed < 0, parameters.silenceSpeedWindow > 0,
            let first = dwell.first(where: { last.time - $0.time <= parameters.silenceSpeedWindow }),
            last.time > first.time
        {
            speed = SynchronizedDistance.distance(first, last) / (last.time - first.time)
        } else if speed < 0, let previous = previousGood, last.time > previous.time {
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
    /// departure from a stay that was not still: a pause the silence rule settled may end the input. In a stay the
    /// tracker holds, a walk out already under way (fixes outside the envelope, or the last fixes fitting a walk at
    /// the tracker's walking speed) is a departure, traced as any other.
    public mutating func finish() -> [ReportDecision] {
        var out: [ReportDecision] = []
        // A stay the tracker holds whose last fixes lay outside it: the walk out had begun (its fixes are owed ε
        // as at any departure), the input ended before the tracker could say so.
        if phase == .settled, tracked, let last = recent.last,
            outsideSince != nil || walkOutFit(last, centre: centre).map({ $0.speed >= walkingSpeed }) == true
        {
            recent.removeLast()
            out = whileSettled(last, departed: false, ending: true)
        }
        if phase == .settled, let place, let centre, let last = recent.last,
            last.time - settledSince < visits.parameters.minimumStay,
            SynchronizedDistance.distance(place, last) > parameters.epsilon
        {
            var out = retrace(Array(recent.dropLast()), from: place, to: last, centre: centre, at: last)
            out.append(decision(.track, last, at: last, "end of input, settled briefly"))
            return out
        }
        guard phase == .moving, let last = simplifier.flush() else { return out }
        return out + [decision(.track, last, at: last, "end of input")]
    }

    private mutating func whileMoving(_ point: ReportPoint, arrival: Visit?) -> [ReportDecision] {
        var out = simplifier.add(point).map {
            decision(.track, $0, at: point, $0 == point ? "first fix" : "the track would leave ε at the next fix")
        }
        let still = stationary.stillSince.map { point.time - max($0, movingSince ?? $0) >= stillFor } ?? false
        dwell.append(point)
        while dwell.count > 1, point.time - dwell[1].time >= parameters.dwellTime { dwell.removeFirst() }
        let dwelt = !still && dwelling(point)
        let wandering = still || dwelt || arrival != nil ? nil : wanderingStay
        if still || dwelt || arrival != nil || wandering != nil {
            out.removeAll { $0.point == point }
            let why = still
                ? "settled: still for \(Int(stillFor)) s"
                : dwelt
                    ? "settled: within \(Int(parameters.dwellRadius)) m for \(Int(parameters.dwellTime)) s"
                    : wandering.map { "settled: staying, fixes wandering \(Int($0.spread.rounded())) m (RMS)" }
                        ?? "settled: arrival visit"
            out.append(decision(.arrival, point, at: point, why))
            // The centre starts from the evidence that settled the user, weighted by the time it spans:
            // the dwell window's mean, the visit's centre, or this fix (a stillness settle's fixes all
            // lay within `stillRadius` of it).
            if dwelt, let mean = StayCentre(dwell) {
                settle(at: point, since: point.time - parameters.dwellTime, centre: StayCentre(
                    latitude: mean.latitude, longitude: mean.longitude, time: point.time, weight: parameters.dwellTime))
            } else if let wandering {
                settle(at: point, since: wandering.since, centre: StayCentre(
                    latitude: wandering.latitude, longitude: wandering.longitude, time: point.time,
                    weight: point.time - wandering.since))
                tracked = true
                wander = wandering.spread
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
        tracked = false
        outsideSince = nil
    }

    /// A stay the tracker holds, begun since the user last left a place, whose fixes wander wider than
    /// `wanderSpread` and of which the newest fix is part: where it is, since when, and its spread.
    private var wanderingStay: (latitude: Double, longitude: Double, since: Double, spread: Double)? {
        guard let stays, stays.isSettled, let since = stays.since?.timeIntervalSince1970, since >= leftAt,
            let spread = stays.spread, spread > parameters.wanderSpread, let centre = stays.centre,
            Self.persistence(trail.drop(while: { $0.time < since }), step: parameters.wanderStep)
                .map({ $0 <= parameters.wanderPersistence }) ?? true
        else { return nil }
        return (centre.latitude, centre.longitude, since, spread)
    }

    private mutating func whileSettled(_ point: ReportPoint, departed: Bool, ending: Bool = false) -> [ReportDecision] {
        guard let place, var centre else { return [] }
        let distance = SynchronizedDistance.distance(place, point)
        let fromCentre = centre.distance(to: point)
        // A settle by the other rules that turns out to be a stay whose fixes wander is the tracker's from then on:
        // wider than twice `wanderSpread`, as a tight stay's spread grows by a few metres when it takes in the first
        // fixes of a walk out (still within its envelope), and that walk must leave by the other rules, at once.
        if !tracked, let stay = wanderingStay, stay.spread > 2 * parameters.wanderSpread, !drifted(recent + [point]),
            SynchronizedDistance.distance(
                latitude1: stay.latitude, longitude1: stay.longitude, latitude2: centre.latitude,
                longitude2: centre.longitude) <= parameters.regionRadius
        {
            tracked = true
        }
        if tracked, let stays {
            if stays.isSettled { outsideSince = nil } else if stays.isStaying { outsideSince = outsideSince ?? point.time }
            if let spread = stays.spread { wander = spread }
        }
        // A stay the tracker holds is left when the tracker ends it (decision 0064): a wander of 150 m around a
        // building is its noise, not leaving; the fixed radius below is not.
        var left: Bool
        if ending {
            left = true
        } else if tracked {
            left = !(stays?.isStaying ?? false) || walksAway(point, from: centre)
        } else {
            left = departed
                || fromCentre - point.horizontalAccuracy > max(parameters.regionRadius, 2 * point.horizontalAccuracy)
        }
        if let freshness = parameters.freshness, distance > min(freshness, parameters.regionRadius) { left = true }
        if left {
            let walkOutFrom = tracked ? walkOutStart(point, centre: centre) : nil
            phase = .moving
            movingSince = point.time
            leftAt = point.time
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
            out += retrace(stay, from: place, to: departure, centre: centre, at: point, walkOutFrom: walkOutFrom)
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
        at now: ReportPoint, walkOutFrom: Double? = nil
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
        if let walkOutFrom, !drifted(stay.filter { $0.time <= walkOutFrom }) {
            // A stay the tracker held: its scatter, however wide, is the receiver's wander; its walk out is traced
            // from the last fix before the time the walk, extrapolated back, left the place.
            let last = stay.lastIndex { $0.time <= walkOutFrom } ?? 0
            fixes = Array(stay[(last + 1)...])
            start = stay[last]
            why = "the walk out from a wandering stay"
        } else if compact, departure.time - settledSince >= visits.parameters.minimumStay {
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

    /// Whether the fixes of a stay the tracker held drift: the mean of their newer half lies farther from their
    /// older half's than half the tracker's walking speed (0.3 m/s) would carry the user between the halves'
    /// middles. A wander comes back and a slow walk does not (decision 0064's test, over the whole stay): a hiker
    /// at 0.4 m/s with a fix every 10 m looks like a stay over a few minutes, not over the whole of it.
    private func drifted(_ fixes: [ReportPoint]) -> Bool {
        guard let first = fixes.first, let last = fixes.last, last.time > first.time else { return false }
        let middle = (first.time + last.time) / 2
        guard let older = StayCentre(fixes.filter { $0.time < middle }),
            let newer = StayCentre(fixes.filter { $0.time >= middle })
        else { return false }
        let apart = SynchronizedDistance.distance(
            latitude1: older.latitude, longitude1: older.longitude, latitude2: newer.latitude,
            longitude2: newer.longitude)
        return apart > walkingSpeed / 2 * (last.time - first.time) / 2
    }

    /// Whether the user walks away from a stay the tracker holds, before the tracker sees it (its envelope may
    /// reach the next place): over the tracker's window the fixes keep a direction (`walkAwayPersistence`) and have
    /// gone farther than `walkAwaySpreads` of the stay's spread, ending as far from its centre.
    private func walksAway(_ point: ReportPoint, from centre: StayCentre) -> Bool {
        guard let window = parameters.stays?.window,
            let start = trail.firstIndex(where: { point.time - $0.time <= window }),
            point.time - trail[start].time >= window / 2,
            SynchronizedDistance.distance(trail[start], point) > parameters.walkAwaySpreads * wander,
            centre.distance(to: point) > parameters.walkAwaySpreads * wander,
            let persistence = Self.persistence(trail[start...], step: parameters.wanderStep)
        else { return false }
        return persistence > parameters.walkAwayPersistence
    }

    /// How much `fixes` keep a direction: the length-weighted mean cosine between successive moves, each from a fix
    /// to the first at least `step` seconds later (1: a straight walk; near 0 or below: a wander, each move mostly
    /// fresh noise, pulled back towards the place). Nil with fewer than two moves.
    static func persistence(_ fixes: ArraySlice<ReportPoint>, step: Double) -> Double? {
        guard let origin = fixes.first else { return nil }
        let scale = cos(origin.latitude * .pi / 180)
        func plane(_ point: ReportPoint) -> (x: Double, y: Double) {
            var dLon = point.longitude - origin.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let metres = SynchronizedDistance.earthRadius * .pi / 180
            return (dLon * scale * metres, (point.latitude - origin.latitude) * metres)
        }
        var from = origin
        var previous: (x: Double, y: Double)?
        var along = 0.0
        var lengths = 0.0
        for point in fixes where point.time - from.time >= step {
            let a = plane(from)
            let b = plane(point)
            let move = (x: b.x - a.x, y: b.y - a.y)
            if let previous {
                along += previous.x * move.x + previous.y * move.y
                lengths += (previous.x * previous.x + previous.y * previous.y).squareRoot()
                    * (move.x * move.x + move.y * move.y).squareRoot()
            }
            previous = move
            from = point
        }
        return lengths > 0 ? along / lengths : nil
    }

    /// The stay tracker's walking speed (m/s): a stay's fixes that move faster walk.
    private var walkingSpeed: Double { parameters.stays?.walkingSpeed ?? 0.6 }

    /// When the walk out of a stay the tracker held began, at the latest (decision 0064): the walk's fixes
    /// (`walkOutFit`) fitted by a line in time, put back to the place, less the time the walk takes to cross
    /// `walkOutSpreads` spreads (the wander the place's fixes had then: the walk's first fixes carry it too). A walk
    /// slower than 0.3 m/s, or too few fixes to fit, falls back to the last fix within `walkOutFallbackSpreads` of
    /// the centre.
    private func walkOutStart(_ point: ReportPoint, centre: StayCentre) -> Double? {
        let fallback = recent.last {
            centre.distance(to: $0) <= max(parameters.walkOutFallbackSpreads * wander, parameters.epsilon)
        }?.time
        guard let fit = walkOutFit(point, centre: centre), fit.speed >= 0.3 else {
            return fallback ?? recent.first?.time
        }
        return fit.start - parameters.walkOutSpreads * wander / fit.speed
    }

    /// The walk out's line: the fixes since the first of the run outside the stay's envelope (at least the tracker's
    /// 30 s of walk; ended by its walking test instead, the newer half of its staying window), fitted by least
    /// squares; its speed, and when it was at the place at the latest.
    private func walkOutFit(_ point: ReportPoint, centre: StayCentre?) -> (start: Double, speed: Double)? {
        guard let centre else { return nil }
        // Ended by the run outside: that run is the walk; ended by the walking test: the window's newer half.
        let since = outsideSince ?? point.time - (parameters.stays.map { $0.stayingWindow ?? $0.window } ?? 0) / 2
        let walk = recent.filter { $0.time >= since } + [point]
        guard walk.count >= 3 else { return nil }
        let scale = SynchronizedDistance.earthRadius * .pi / 180
        let cosine = cos(centre.latitude * .pi / 180)
        let samples = walk.map { fix -> (t: Double, x: Double, y: Double) in
            var dLon = fix.longitude - centre.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (fix.time, dLon * cosine * scale, (fix.latitude - centre.latitude) * scale)
        }
        let n = Double(samples.count)
        let tMean = samples.reduce(0) { $0 + $1.t } / n
        let xMean = samples.reduce(0) { $0 + $1.x } / n
        let yMean = samples.reduce(0) { $0 + $1.y } / n
        let stt = samples.reduce(0) { $0 + ($1.t - tMean) * ($1.t - tMean) }
        guard stt > 0 else { return nil }
        let vx = samples.reduce(0) { $0 + ($1.t - tMean) * ($1.x - xMean) } / stt
        let vy = samples.reduce(0) { $0 + ($1.t - tMean) * ($1.y - yMean) } / stt
        let speed = (vx * vx + vy * vy).squareRoot()
        guard speed > 0 else { return nil }
        // Where the line passes nearest the centre, or, if earlier, the first fix less the time its distance
        // from the centre took at that speed (a walk out that did not head straight away).
        let nearest = tMean - (xMean * vx + yMean * vy) / (speed * speed)
        let first = samples[0]
        let radial = first.t - (first.x * first.x + first.y * first.y).squareRoot() / speed
        return (min(nearest, radial), speed)
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

import Foundation

/// Knows when the user is staying somewhere although the fixes wander (decision 0064).
///
/// Indoors a phone's fixes wander 20–150 m around the building for minutes at a time, with stated
/// accuracies that may say 5 m; a rule on a fixed radius (every fix within 25 m, or 100 m) either
/// never settles there or settles on a slow walk. This rule takes the radius from the fixes' own
/// spread and tells a wander from a walk by where the fixes' *mean* goes. Time is the fixes' own
/// timestamps (a replay at any speed decides the same). Fed screened fixes (`JumpScreen`).
///
/// - **Staying begins** when the fixes of the last `window` seconds (300 s, the window full, its fixes
///   covering half of it, each standing for at most 30 s) all lie
///   within `maximumRadius` (250 m) of their mean and the mean of the window's older half lies
///   within `walkingSpeed × window / 2` (0.6 m/s: 90 m) of the newer half's. A walk at 1.1 m/s
///   moves its halves' means 165 m apart; a dawdle, or a wander that comes back, does not. The stay
///   begins at the window's first fix.
/// - **The stay** is the time-weighted mean of its fixes (each standing for the seconds since the
///   one before, at most 30 s), its *spread* their RMS distance from it, and its *envelope*
///   `clamp(3 × spread, minimumRadius, maximumEnvelope)`: 50 m at least, 100 m at most. A fix within
///   the envelope plus its own accuracy (at most 100 m) belongs to the stay and refines it.
/// - **Staying ends** when at least two fixes in a row lie outside, the last `departure` (20 s)
///   after the first: one wild fix, or a moment beyond the envelope, changes nothing. The fixes
///   outside start the next window. It also ends when the stay's own fixes of the last `window`
///   walk by the test that began it (a slow walk taken for a stay).
/// - The place is measured from the window's newer half (the older may hold the end of the walk in).
/// - Where the user is, while staying: the stay's mean, known to `spread / √(duration / 120 s)` (the
///   wander is correlated over minutes, so its mean settles that slowly), not the newest fix.
public struct StayTracker: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        public var window = 300.0
        /// Seconds over which a stay's own fixes must not walk, once it began; nil = `window`. The reporter looks
        /// over a longer span than it begins on: a wander correlated over minutes moves the means of a short
        /// window's halves as far apart as a slow walk does (decision 0064).
        public var stayingWindow: Double?
        /// Whether each half of the window must be covered by fixes (a quarter of the window each), not only the
        /// whole (half of it): one fix before a silence and a walk's fixes after it cover half a window between
        /// them, and their halves' means, one fix against a walk's mean, can lie as close as a stay's.
        public var coverEachHalf = false
        public var walkingSpeed = 0.6
        public var minimumRadius = 50.0
        public var maximumRadius = 250.0
        /// The envelope's largest radius, metres (the engine's stationary region): tuned on the reporter's
        /// tuning half, where 150 m and 250 m let walks out inside the envelope break ε (decision 0064).
        public var maximumEnvelope = 100.0
        /// Envelope = spreadFactor × spread (RMS), clamped.
        public var spreadFactor = 3.0
        public var departure = 20.0
        /// Metres of a fix's stated accuracy the envelope grants it, at most.
        public var accuracyAllowance = 100.0
        /// Fixes less accurate than this are not evidence.
        public var maximumAccuracy = 200.0
        /// Seconds over which the wander is correlated (the centre's uncertainty).
        public var correlationTime = 120.0

        public init() {}
    }

    struct Sample: Sendable {
        var time: Double
        var x: Double
        var y: Double
        var accuracy: Double
        var weight: Double
    }

    /// Weighted sums of a stay's fixes on the plane.
    struct Sums: Sendable {
        var weight = 0.0
        var x = 0.0
        var y = 0.0
        var squares = 0.0

        mutating func add(_ s: Sample) {
            weight += s.weight
            x += s.weight * s.x
            y += s.weight * s.y
            squares += s.weight * (s.x * s.x + s.y * s.y)
        }

        var mean: (x: Double, y: Double) { weight > 0 ? (x / weight, y / weight) : (0, 0) }

        var spread: Double {
            guard weight > 0 else { return 0 }
            let m = mean
            return max(0, squares / weight - m.x * m.x - m.y * m.y).squareRoot()
        }
    }

    public let parameters: Parameters
    private var reference: (latitude: Double, longitude: Double, metresPerDegreeLongitude: Double)?
    private var candidate: [Sample] = []
    private var stay: Sums?
    private var staySince = 0.0
    private var stayLast = 0.0
    private var away: [Sample] = []
    /// While staying: the stay's fixes of the last `window` seconds (the walking test goes on).
    private var recentWindow: [Sample] = []
    private var lastTime: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// A stay is going on.
    public var isStaying: Bool { stay != nil }

    /// Staying, and the newest fix belonged to the stay.
    public var isSettled: Bool { stay != nil && away.isEmpty }

    /// When the stay began (its first fix's timestamp), while staying.
    public var since: Date? { stay.map { _ in Date(timeIntervalSince1970: staySince) } }

    /// The stay's spread, metres (RMS distance of its fixes from its mean), while staying.
    public var spread: Double? { stay?.spread }

    /// The distance within which a fix belongs to the stay, before its own accuracy, metres.
    public var envelope: Double? {
        stay.map { min(max(parameters.spreadFactor * $0.spread, parameters.minimumRadius), parameters.maximumEnvelope) }
    }

    /// Where the user stays, and how well that is known (metres), while staying.
    public var centre: (latitude: Double, longitude: Double, accuracy: Double)? {
        guard let stay, let reference else { return nil }
        let m = stay.mean
        let duration = max(stayLast - staySince, 1)
        let accuracy = stay.spread / max(1, duration / parameters.correlationTime).squareRoot()
        return (
            reference.latitude + m.y / Self.metresPerDegree,
            reference.longitude + m.x / reference.metresPerDegreeLongitude, accuracy
        )
    }

    /// Whether a fix lies within the stay's envelope (plus its accuracy): noise of the stay, not a departure.
    public func holds(latitude: Double, longitude: Double, accuracy: Double) -> Bool {
        guard let stay, let envelope else { return false }
        let p = plane(latitude, longitude)
        let m = stay.mean
        let d = ((p.x - m.x) * (p.x - m.x) + (p.y - m.y) * (p.y - m.y)).squareRoot()
        return d <= envelope + min(max(accuracy, 0), parameters.accuracyAllowance)
    }

    /// Feeds one fix (screened); fixes not newer than the last one, invalid or too inaccurate are ignored.
    public mutating func observe(_ fix: Fix) {
        let time = fix.timestamp.timeIntervalSince1970
        guard fix.horizontalAccuracy >= 0, fix.horizontalAccuracy <= parameters.maximumAccuracy,
            fix.latitude.isFinite, fix.longitude.isFinite, time > (lastTime ?? -.infinity)
        else { return }
        let weight = lastTime.map { min(time - $0, 30) } ?? 1
        lastTime = time
        if reference == nil || (stay == nil && candidate.isEmpty) {
            reference = (
                fix.latitude, fix.longitude, Self.metresPerDegree * max(cos(fix.latitude * .pi / 180), 1e-6)
            )
        }
        let p = plane(fix.latitude, fix.longitude)
        let sample = Sample(time: time, x: p.x, y: p.y, accuracy: fix.horizontalAccuracy, weight: weight)
        let stayingWindow = parameters.stayingWindow ?? parameters.window
        if var current = stay {
            if holds(latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.horizontalAccuracy) {
                away.removeAll()
                current.add(sample)
                stay = current
                stayLast = time
                // The stay's own fixes must not walk either: a slow walk taken for a stay ends when the
                // last window's halves' means part as a walk's do.
                recentWindow.append(sample)
                while recentWindow.count > 1, time - recentWindow[1].time >= stayingWindow {
                    recentWindow.removeFirst()
                }
                if walked(recentWindow, over: stayingWindow) {
                    stay = nil
                    candidate = recentWindow
                    recentWindow.removeAll()
                }
                return
            }
            away.append(sample)
            guard away.count >= 2, let first = away.first, time - first.time >= parameters.departure else { return }
            stay = nil
            candidate = away
            away.removeAll()
            return
        }
        candidate.append(sample)
        while candidate.count > 1, time - candidate[1].time >= parameters.window { candidate.removeFirst() }
        if let started = dwelling() {
            // The place from the window's newer half: its older half may hold the last of the walk in.
            let middle = (started + time) / 2
            var sums = Sums()
            for s in candidate where s.time >= middle { sums.add(s) }
            stay = sums
            staySince = started
            stayLast = time
            recentWindow = candidate
            candidate.removeAll()
        }
    }

    /// Whether a full window's older half's mean lies more than `walkingSpeed × window / 2` from its newer
    /// half's: the fixes walk.
    private func walked(_ samples: [Sample], over window: Double) -> Bool {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= window
        else { return false }
        var older = Sums()
        var newer = Sums()
        let middle = (first.time + last.time) / 2
        for s in samples {
            if s.time < middle { older.add(s) } else { newer.add(s) }
        }
        let (a, b) = (older.mean, newer.mean)
        return ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
            > parameters.walkingSpeed * window / 2
    }

    /// The window is full, compact and its mean did not walk: the time the stay began.
    private func dwelling() -> Double? {
        guard let first = candidate.first, let last = candidate.last, last.time - first.time >= parameters.window,
            !walked(candidate, over: parameters.window)
        else { return nil }
        var all = Sums()
        for s in candidate.dropFirst() { all.add(s) }
        // Fixes must cover half the window (each standing for at most 30 s): a receiver silent for minutes
        // says nothing of where its user went meanwhile.
        guard all.weight >= parameters.window / 2 else { return nil }
        if parameters.coverEachHalf {
            let middle = (first.time + last.time) / 2
            var older = Sums()
            for s in candidate.dropFirst() where s.time < middle { older.add(s) }
            guard older.weight >= parameters.window / 4, all.weight - older.weight >= parameters.window / 4 else {
                return nil
            }
        }
        let m = all.mean
        let compact = candidate.allSatisfy {
            (($0.x - m.x) * ($0.x - m.x) + ($0.y - m.y) * ($0.y - m.y)).squareRoot() <= parameters.maximumRadius
        }
        return compact ? first.time : nil
    }

    static let metresPerDegree = LocalPlane.radius * .pi / 180

    private func plane(_ latitude: Double, _ longitude: Double) -> (x: Double, y: Double) {
        guard let reference else { return (0, 0) }
        var dLon = longitude - reference.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * reference.metresPerDegreeLongitude, (latitude - reference.latitude) * Self.metresPerDegree)
    }
}

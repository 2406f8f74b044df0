import Foundation
import CoreLocationGeodesy

/// A stay at one place, as the visits service reports it (`CLVisit`'s fields).
public struct Visit: Sendable, Hashable, Codable {
    /// When the stay began; nil when it began before the detector's first fix (Apple's
    /// `.distantPast`).
    public var arrival: Date?
    /// When the stay ended; nil while it goes on (Apple's `.distantFuture`: an arrival visit).
    public var departure: Date?
    /// The stay's centre, degrees (WGS84).
    public var latitude: Double
    public var longitude: Double
    /// Radius of uncertainty of the centre, metres (see `VisitDetector`).
    public var horizontalAccuracy: Double
    /// The timestamp of the fix that decided this event (when the news became known).
    public var decidedAt: Date

    public init(
        arrival: Date?, departure: Date?, latitude: Double, longitude: Double, horizontalAccuracy: Double,
        decidedAt: Date
    ) {
        self.arrival = arrival
        self.departure = departure
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.decidedAt = decidedAt
    }
}

/// An online stay detector: the visits service's rule.
///
/// Time is the fixes' own timestamps, not the clock they arrive by, so a replay at any speed finds the
/// same visits, and a fix no newer than the last one used is ignored.
///
/// The rule, with `Parameters`' defaults:
/// - Evidence: a fix counts only with `0 ≤ horizontalAccuracy ≤ maximumAccuracy` (200 m).
/// - A cluster is a run of fixes whose every member lay within `radius` (100 m, geodesic) of the
///   cluster's centre when it arrived. The centre is the mean of its fixes, each weighted by the
///   time it stands for (since the previous fix, at most 30 min) over its accuracy squared.
/// - A fix more than `radius` plus its own accuracy from the centre is *outside*; one between
///   `radius` and `radius + accuracy` can't tell and is skipped. Outside fixes end the cluster only
///   when there are at least two and the last lies `departureDwell` (60 s) after the cluster's last
///   inside fix: a lone outlier, or a short excursion that comes back, changes nothing.
/// - When a cluster ends, its outside fixes seed the next one, oldest first; each fix that lies
///   beyond `radius` of the growing cluster's centre drops the cluster's oldest fixes until it fits
///   (a sliding window, so a moving user's cluster is just the last hundred metres).
/// - Core: the fixes within `coreRadius` (30 m, or the fix's own accuracy if larger) of the
///   centre. They bound the stay in time; the approach and the walk out through the outer ring do
///   not.
/// - Arrival: once a cluster's core fixes span `minimumStay` (300 s), the visit begins at the first
///   of them and an arrival visit (departure nil) is reported; so every visit lasts `minimumStay` at
///   least. The cluster that holds the detector's very first fix has an unknown arrival: the user
///   may have been there long before.
/// - Departure: when a confirmed cluster ends, the visit ends at its last core fix, and the
///   completed visit (both dates) is reported.
/// - Accuracy: √(spread² + σ²/n), where spread is the RMS distance of the stay's fixes from the
///   centre, with the centre's weights (how large the place is, noise included), σ the RMS of
///   their accuracies and n = min(fixes, duration / `errorCorrelationTime`) (GNSS errors are
///   correlated over about a
///   minute, so a thousand fixes a second apart do not average out to σ/√1000).
///
/// Gaps need no special rule: a fix after a gap that is still inside continues the stay (the user
/// did not leave, as far as anyone can tell), and one outside ends it at the last fix seen inside.
public struct VisitDetector: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// Metres from the centre within which a fix belongs to the stay.
        public var radius: Double = 100
        /// Metres from the centre that bound the stay's arrival and departure times (or a fix's
        /// own accuracy, if larger). Chosen on the visits benchmark's tracks: 50 m put arrivals
        /// ~45 s early and let slow walking on hairpins count as stays; 30 m did neither.
        public var coreRadius: Double = 30
        /// Seconds a cluster must span before it is a stay.
        public var minimumStay: Double = 300
        /// Seconds of outside evidence, after the last inside fix, that end a stay.
        public var departureDwell: Double = 60
        /// Fixes less accurate than this (metres) are not evidence.
        public var maximumAccuracy: Double = 200
        /// Seconds over which GNSS errors stay correlated (see the accuracy rule).
        public var errorCorrelationTime: Double = 60

        public init() {}
    }

    struct Sample: Sendable {
        var time: Double
        var latitude: Double
        var longitude: Double
        var accuracy: Double
        /// The centre's weight for this fix, set when it joins a cluster.
        var weight = 0.0
    }

    /// Fixes in metres on a local tangent plane at `reference`; sums for the weighted centre.
    struct Cluster: Sendable {
        let referenceLatitude: Double
        let referenceLongitude: Double
        let metresPerDegreeLongitude: Double
        var samples: [Sample] = []
        var head = 0
        var weight = 0.0
        var sumX = 0.0
        var sumY = 0.0
        var sumSquares = 0.0
        var sumAccuracySquares = 0.0
        var count = 0
        var arrivalKnown: Bool
        var arrival: Double?
        var lastInside: Double
        var lastCore: Double
        var confirmed = false
        var lastAdded: Double?
        /// Seconds one fix may stand for at most (a receiver off for hours says little).
        static let maximumWeightTime = 1800.0
        /// Bounds a candidate's memory: an hour of 1 Hz fixes.
        static let maximumCandidateFixes = 3600

        init(first: Sample, arrivalKnown: Bool) {
            referenceLatitude = first.latitude
            referenceLongitude = first.longitude
            metresPerDegreeLongitude = Self.metresPerDegree * cos(first.latitude * .pi / 180)
            self.arrivalKnown = arrivalKnown
            lastInside = first.time
            lastCore = first.time
            add(first)
        }

        static let metresPerDegree = 111_195.0

        func plane(_ sample: Sample) -> (x: Double, y: Double) {
            var dLon = sample.longitude - referenceLongitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * metresPerDegreeLongitude, (sample.latitude - referenceLatitude) * Self.metresPerDegree)
        }

        /// Adds a fix, weighted by the time it stands for (since the cluster's previous fix, 1 s to
        /// `maximumWeightTime`) over its accuracy squared: a stay seen by a sparse logger, or across a
        /// gap, counts for the time spent there, not for the number of fixes of the walk in and out.
        mutating func add(_ sample: Sample) {
            var sample = sample
            let (x, y) = plane(sample)
            let span = min(max(sample.time - (lastAdded ?? sample.time), 1), Self.maximumWeightTime)
            lastAdded = sample.time
            let w = span / max(sample.accuracy, 1) / max(sample.accuracy, 1)
            sample.weight = w
            weight += w
            sumX += w * x
            sumY += w * y
            sumSquares += w * (x * x + y * y)
            sumAccuracySquares += sample.accuracy * sample.accuracy
            count += 1
            if !confirmed {
                samples.append(sample)
                // A candidate that never settles (laps of a running track) keeps its newest fixes only.
                if samples.count - head > Self.maximumCandidateFixes { dropOldest() }
            }
        }

        mutating func dropOldest() {
            guard head < samples.count else { return }
            let sample = samples[head]
            head += 1
            let (x, y) = plane(sample)
            let w = sample.weight
            weight -= w
            sumX -= w * x
            sumY -= w * y
            sumSquares -= w * (x * x + y * y)
            sumAccuracySquares -= sample.accuracy * sample.accuracy
            count -= 1
            if head > 64 && head * 2 > samples.count {
                samples.removeFirst(head)
                head = 0
            }
        }

        /// Distance on the local plane, metres: within a few hundred metres of the reference it
        /// differs from the geodesic by far less than a fix's noise.
        func planeDistanceFromCentre(_ sample: Sample) -> Double {
            guard weight > 0 else { return 0 }
            let (x, y) = plane(sample)
            let dx = x - sumX / weight
            let dy = y - sumY / weight
            return (dx * dx + dy * dy).squareRoot()
        }

        /// The time of the candidate's first fix within `radius` of the centre.
        func firstTime(within radius: Double) -> Double? {
            samples[head...].first { planeDistanceFromCentre($0) <= max(radius, $0.accuracy) }?.time
        }

        var isEmpty: Bool { count == 0 }
        var firstTime: Double? { head < samples.count ? samples[head].time : nil }

        var centre: (latitude: Double, longitude: Double) {
            guard weight > 0 else { return (referenceLatitude, referenceLongitude) }
            let latitude = referenceLatitude + sumY / weight / Self.metresPerDegree
            var longitude = referenceLongitude
            if metresPerDegreeLongitude > 1e-9 { longitude += sumX / weight / metresPerDegreeLongitude }
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            return (min(max(latitude, -90), 90), longitude)
        }

        func accuracy(until time: Double, correlation: Double) -> Double {
            guard weight > 0, count > 0 else { return -1 }
            let cx = sumX / weight
            let cy = sumY / weight
            let spreadSquared = max(0, sumSquares / weight - cx * cx - cy * cy)
            let sigmaSquared = sumAccuracySquares / Double(count)
            let duration = time - (arrival ?? firstTime ?? time)
            let effective = max(1, min(Double(count), duration / max(correlation, 1)))
            return (spreadSquared + sigmaSquared / effective).squareRoot()
        }
    }

    public let parameters: Parameters
    private var cluster: Cluster?
    private var outside: [Sample] = []
    private var lastTime: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Whether a stay is confirmed and going on (an arrival was reported, the departure not yet).
    public var isInVisit: Bool { cluster?.confirmed ?? false }

    /// In a visit, and the last fix that could tell was inside it: nothing suggests leaving.
    public var isSettled: Bool { isInVisit && outside.isEmpty }

    /// Feeds one fix; returns the visits it decided (arrival visits, then completed ones), usually none.
    public mutating func observe(_ fix: Fix) -> [Visit] {
        guard fix.horizontalAccuracy >= 0, fix.horizontalAccuracy <= parameters.maximumAccuracy,
            fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
        else { return [] }
        let time = fix.timestamp.timeIntervalSinceReferenceDate
        let isFirst = lastTime == nil
        // Not newer than the last fix used: a repeat, or out of order.
        if let lastTime, time <= lastTime { return [] }
        lastTime = time
        let sample = Sample(
            time: time, latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.horizontalAccuracy
        )
        guard var current = cluster else {
            cluster = Cluster(first: sample, arrivalKnown: !isFirst)
            return []
        }
        var visits: [Visit] = []
        let distance = distanceFromCentre(of: current, to: sample)
        if distance <= parameters.radius {
            outside.removeAll()
            current.add(sample)
            current.lastInside = time
            if current.planeDistanceFromCentre(sample) <= max(parameters.coreRadius, sample.accuracy) {
                current.lastCore = time
            }
            if !current.confirmed, let first = current.firstTime, current.lastCore - first >= parameters.minimumStay,
                let arrival = current.firstTime(within: parameters.coreRadius),
                current.lastCore - arrival >= parameters.minimumStay
            {
                confirm(&current)
                visits.append(visit(current, departure: nil, decidedAt: fix.timestamp))
            }
            cluster = current
        } else if distance - sample.accuracy > parameters.radius {
            outside.append(sample)
            if outside.count >= 2, time - current.lastInside >= parameters.departureDwell {
                if current.confirmed {
                    visits.append(
                        visit(
                            current, departure: Date(timeIntervalSinceReferenceDate: current.lastCore),
                            decidedAt: fix.timestamp))
                }
                let seeds = outside
                outside.removeAll()
                cluster = nil
                for seed in seeds { slide(seed) }
            }
        }
        return visits
    }

    /// Adds a fix to a cluster that is still a candidate, dropping its oldest fixes until it fits.
    private mutating func slide(_ sample: Sample) {
        guard var current = cluster else {
            cluster = Cluster(first: sample, arrivalKnown: true)
            return
        }
        while !current.isEmpty, distanceFromCentre(of: current, to: sample) > parameters.radius {
            current.dropOldest()
        }
        if current.isEmpty {
            cluster = Cluster(first: sample, arrivalKnown: true)
            return
        }
        current.add(sample)
        current.lastInside = sample.time
        if current.planeDistanceFromCentre(sample) <= max(parameters.coreRadius, sample.accuracy) {
            current.lastCore = sample.time
        }
        cluster = current
    }

    /// A candidate becomes a stay: its arrival is its first fix near the centre, and the approach
    /// before it leaves the sums.
    private func confirm(_ current: inout Cluster) {
        while current.count > 1, current.head < current.samples.count,
            current.planeDistanceFromCentre(current.samples[current.head])
                > max(parameters.coreRadius, current.samples[current.head].accuracy)
        {
            current.dropOldest()
        }
        current.arrival = current.firstTime
        current.confirmed = true
        current.samples.removeAll()
        current.head = 0
    }

    private func visit(_ cluster: Cluster, departure: Date?, decidedAt: Date) -> Visit {
        let centre = cluster.centre
        let end = departure?.timeIntervalSinceReferenceDate ?? decidedAt.timeIntervalSinceReferenceDate
        return Visit(
            arrival: cluster.arrivalKnown ? cluster.arrival.map(Date.init(timeIntervalSinceReferenceDate:)) : nil,
            departure: departure,
            latitude: centre.latitude,
            longitude: centre.longitude,
            horizontalAccuracy: cluster.accuracy(until: end, correlation: parameters.errorCorrelationTime),
            decidedAt: decidedAt
        )
    }

    private func distanceFromCentre(of cluster: Cluster, to sample: Sample) -> Double {
        let centre = cluster.centre
        return Geodesic.wgs84.inverse(
            latitude1: centre.latitude, longitude1: centre.longitude,
            latitude2: sample.latitude, longitude2: sample.longitude
        ).distance
    }
}

import Foundation

/// Ranging and beacon-region monitoring as a state machine fed with sightings and time (monotonic seconds).
///
/// - Ranging runs in 1 s cycles from the first `startRanging`: at each cycle's end every ranged constraint gets
///   one `.ranged` action, empty arrays included. A beacon is listed while it was heard within `retention`
///   (5 s); its `rssi` is the cycle's mean (0 with no reading), `accuracy` the path-loss distance of that mean
///   (−1 with no reading), ordered immediate, near, far, unknown, then by accuracy.
/// - Identities, not addresses, are the key: a beacon whose address rotates stays one beacon.
/// - A region is entered at the first matching sighting, exited after `exitSilence` (30 s) without one; a
///   region never entered becomes `outside` after `exitSilence` from its start (docs/decisions/0030).
///
/// The shell calls `tick(at:)` at `nextDeadline` (and may call it more often).
public struct BeaconRanger: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var cycle: Double = 1
        public var retention: Double = 5
        public var exitSilence: Double = 30
        public var model = PathLossModel()
        public init() {}
    }

    struct Sample: Sendable {
        var sum = 0.0
        var count = 0
        var measuredPower = -59
    }

    struct Region: Sendable {
        var constraint: BeaconConstraint
        var state: BeaconRegionState = .unknown
        var started: Double
        var lastSeen: Double?
    }

    public let configuration: Configuration
    private(set) var constraints: [BeaconConstraint] = []
    private var cycleEnd: Double?
    private var samples: [BeaconIdentity: Sample] = [:]
    private var lastSeen: [BeaconIdentity: Double] = [:]
    private var regions: [String: Region] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var rangedConstraints: [BeaconConstraint] { constraints }
    public var monitoredRegions: [String: BeaconConstraint] { regions.mapValues(\.constraint) }
    public var isActive: Bool { !constraints.isEmpty || !regions.isEmpty }

    /// The next instant `tick` has work: a cycle's end, a region's silence running out.
    public var nextDeadline: Double? {
        var deadlines: [Double] = cycleEnd.map { [$0] } ?? []
        for region in regions.values {
            switch region.state {
            case .inside: if let seen = region.lastSeen { deadlines.append(seen + configuration.exitSilence) }
            case .unknown: deadlines.append(region.started + configuration.exitSilence)
            case .outside: break
            }
        }
        return deadlines.min()
    }

    // MARK: Requests

    public mutating func startRanging(_ constraint: BeaconConstraint, at now: Double) {
        guard !constraints.contains(constraint) else { return }
        constraints.append(constraint)
        if cycleEnd == nil { cycleEnd = now + configuration.cycle }
    }

    public mutating func stopRanging(_ constraint: BeaconConstraint) {
        constraints.removeAll { $0 == constraint }
        if constraints.isEmpty {
            cycleEnd = nil
            samples = [:]
        }
    }

    /// Watches a region from `state`: `unknown` (a new region: decided by a sighting or the
    /// silence), or a state kept from before (a daemon restart): `inside` as if last seen now, so
    /// the next sighting is no new entry and silence from now is an exit; `outside`: the next
    /// sighting is an entry.
    public mutating func startMonitoring(
        identifier: String, constraint: BeaconConstraint, at now: Double, state: BeaconRegionState = .unknown
    ) {
        regions[identifier] = Region(
            constraint: constraint, state: state, started: now, lastSeen: state == .inside ? now : nil)
    }

    public mutating func stopMonitoring(identifier: String) {
        regions[identifier] = nil
    }

    /// The region's current state (`unknown` until a sighting or `exitSilence` decides; nil: not monitored).
    public func requestState(identifier: String) -> [BeaconRangerAction] {
        guard let region = regions[identifier] else { return [] }
        return [.determined(identifier: identifier, region.state)]
    }

    /// The radio went away: nothing heard any more counts as a reading; regions keep their silence timers.
    public mutating func clearReadings() {
        samples = [:]
        lastSeen = [:]
    }

    // MARK: Input

    /// One advertisement's frame heard at `rssi` dBm.
    public mutating func handle(_ frame: BeaconFrame, rssi: Int, at now: Double) -> [BeaconRangerAction] {
        guard case .uuid = frame.identity else { return [] }
        lastSeen[frame.identity] = now
        if !constraints.isEmpty, rssi < 0 {
            var sample = samples[frame.identity] ?? Sample()
            sample.sum += Double(rssi)
            sample.count += 1
            sample.measuredPower = frame.measuredPower
            samples[frame.identity] = sample
        }
        var actions: [BeaconRangerAction] = []
        for identifier in regions.keys.sorted() {
            guard var region = regions[identifier], region.constraint.matches(frame.identity) else { continue }
            region.lastSeen = now
            if region.state != .inside {
                region.state = .inside
                actions.append(.determined(identifier: identifier, .inside))
                actions.append(.entered(identifier: identifier))
            }
            regions[identifier] = region
        }
        return actions
    }

    /// Time passed: cycles that ended, regions whose silence ran out.
    public mutating func tick(at now: Double) -> [BeaconRangerAction] {
        var actions: [BeaconRangerAction] = []
        for identifier in regions.keys.sorted() {
            guard var region = regions[identifier] else { continue }
            switch region.state {
            case .inside:
                if let seen = region.lastSeen, now - seen >= configuration.exitSilence {
                    region.state = .outside
                    actions.append(.determined(identifier: identifier, .outside))
                    actions.append(.exited(identifier: identifier))
                }
            case .unknown:
                if now - region.started >= configuration.exitSilence {
                    region.state = .outside
                    actions.append(.determined(identifier: identifier, .outside))
                }
            case .outside: break
            }
            regions[identifier] = region
        }
        if let end = cycleEnd, now >= end {
            actions += closeCycle(at: now)
            // One result per elapsed cycle boundary is enough: a late tick does not replay missed cycles.
            var next = end + configuration.cycle
            while next <= now { next += configuration.cycle }
            cycleEnd = next
        }
        return actions
    }

    private mutating func closeCycle(at now: Double) -> [BeaconRangerAction] {
        lastSeen = lastSeen.filter { now - $0.value <= configuration.retention }
        var beacons: [RangedBeacon] = []
        for (identity, seen) in lastSeen {
            guard case .uuid(let uuid, let major, let minor) = identity else { continue }
            var beacon = RangedBeacon(
                uuid: uuid, major: major, minor: minor, proximity: .unknown, accuracy: -1, rssi: 0, lastSeen: seen)
            if let sample = samples[identity], sample.count > 0 {
                let mean = sample.sum / Double(sample.count)
                let distance = configuration.model.distance(rssi: mean, measuredPower: sample.measuredPower)
                beacon.rssi = Int(mean.rounded())
                beacon.accuracy = distance ?? -1
                beacon.proximity = PathLossModel.proximity(distance: distance)
            }
            beacons.append(beacon)
        }
        beacons.sort { a, b in
            if a.proximity.sortRank != b.proximity.sortRank { return a.proximity.sortRank < b.proximity.sortRank }
            if a.accuracy != b.accuracy { return a.accuracy < b.accuracy }
            return (a.uuid.uuidString, a.major, a.minor) < (b.uuid.uuidString, b.major, b.minor)
        }
        samples = [:]
        return constraints.map { constraint in
            .ranged(constraint, beacons.filter { constraint.matches(.uuid($0.uuid, major: $0.major, minor: $0.minor)) })
        }
    }
}

import Foundation
import CoreLocationGeodesy

/// The app's monitored regions and the boundary rule that turns fixes into crossings.
///
/// **The rule** (`docs/decisions/0007-region-monitoring.md`, revised by
/// `docs/decisions/0019-region-crossings-on-noisy-tracks.md`). For a fix at geodesic distance `d`
/// from a region's centre, with horizontal accuracy `a`, a region of radius `r` and a hysteresis
/// `h = clamp(hysteresisFraction × r, hysteresisMinimum, hysteresisMaximum)`:
/// - an undetermined region takes the side of the first fix whose whole uncertainty disc lies at
///   least `h` inside (`d + a ≤ r − h`) or outside (`d − a ≥ r + h`) the boundary, at once
///   (`didDetermineState`, no enter/exit: Apple reports no entry for a region the device is
///   already in);
/// - a determined region crosses by `configuration.regionRule` (`RegionCrossingRule`): by default
///   when enough accuracy-aware evidence for the other side has accumulated over time.
///
/// Cost per fix: one `CircleIndex` query plus an exact geodesic check of the regions the device
/// is in, is about to cross, or has not determined yet.
struct RegionMonitor: Sendable {
    struct Entry: Sendable {
        var region: MonitoredRegion
        var state: RegionState
        var pendingState: RegionState?
        var pendingSince: Double = 0
        /// `.evidence` rule: accumulated evidence for the other side, metre-seconds.
        var evidence: Double = 0
        /// Engine time of the region's previous evaluated fix, and of its last crossing.
        var lastFixTime: Double?
        var lastCrossing: Double?
        /// `.sustained` rule: the fix time of the newest clear fix of the pending side.
        var pendingLast: Double = 0
        /// A fix of the region's side lay clear of the band by the recross margin, since the run of fixes that
        /// made the last crossing began; the same for the pending side's run.
        var deepSinceCrossing = false
        var pendingDeep = false
    }

    /// What one fix changed.
    enum Change: Sendable, Equatable {
        case determined(MonitoredRegion, RegionState)
        case crossed(MonitoredRegion, RegionState)
    }

    private(set) var index = CircleIndex()
    private var entries: [Entry?] = []
    private var handles: [String: CircleIndex.Handle] = [:]
    private var watched: Set<CircleIndex.Handle> = []
    /// `requestState` calls waiting for an undetermined region: key → clients, deadline.
    var stateRequests: [String: (clients: [ClientID], deadline: Double)] = [:]

    private var groupCounts: [String: Int] = [:]
    /// Engine time of the previous fix evaluated (any region).
    private var lastEvaluation: Double?
    /// Fix time (timestamp) of the previous fix evaluated (any region): the `.sustained` rule's clock.
    private var lastFixTimestamp: Double?

    var count: Int { handles.count }

    func count(inGroup group: String) -> Int { groupCounts[group] ?? 0 }

    /// The region with this key (`MonitoredRegion.key`).
    func entry(_ key: String) -> Entry? {
        handles[key].flatMap { entries[Int($0)] }
    }

    /// Every region with its state, sorted by key.
    var all: [StoredRegion] {
        handles.keys.sorted().compactMap { key in entry(key).map { StoredRegion(region: $0.region, state: $0.state) } }
    }

    /// Adds or replaces a region (a repeated identifier replaces, as Apple's). False when the
    /// centre or radius cannot be indexed.
    mutating func insert(_ region: MonitoredRegion, state: RegionState) -> Bool {
        remove(region.key)
        guard let handle = index.insert(latitude: region.latitude, longitude: region.longitude, radius: region.radius)
        else { return false }
        let slot = Int(handle)
        if slot >= entries.count { entries.append(contentsOf: repeatElement(nil, count: slot + 1 - entries.count)) }
        entries[slot] = Entry(region: region, state: state)
        handles[region.key] = handle
        groupCounts[region.group, default: 0] += 1
        updateWatch(handle)
        return true
    }

    /// Rebuilds the spatial index so every query reads one grid cell (after a bulk restore; the
    /// index compacts by itself as regions are added one by one, leaving at most a quarter recent).
    mutating func compactIndex() { index.compact() }

    mutating func remove(_ key: String) {
        guard let handle = handles.removeValue(forKey: key) else { return }
        if let group = entries[Int(handle)]?.region.group { groupCounts[group, default: 1] -= 1 }
        index.remove(handle)
        entries[Int(handle)] = nil
        watched.remove(handle)
        stateRequests[key] = nil
    }

    private mutating func updateWatch(_ handle: CircleIndex.Handle) {
        guard let entry = entries[Int(handle)] else { return }
        if entry.state != .outside || entry.pendingState != nil {
            watched.insert(handle)
        } else {
            watched.remove(handle)
        }
    }

    /// The hysteresis distance, metres, for a region of `radius` metres.
    static func hysteresis(radius: Double, configuration: LocationEngine.Configuration) -> Double {
        min(
            max(configuration.regionHysteresisFraction * radius, configuration.regionHysteresisMinimum),
            configuration.regionHysteresisMaximum)
    }

    /// What a fix at `distance` with `accuracy` says about a region of `radius` (`.unknown`: nothing).
    static func evidence(
        distance: Double, accuracy: Double, radius: Double, extraMargin: Double = 0,
        configuration: LocationEngine.Configuration
    ) -> RegionState {
        let h = hysteresis(radius: radius, configuration: configuration) + extraMargin
        if distance + accuracy <= radius - h { return .inside }
        if distance - accuracy >= radius + h { return .outside }
        return .unknown
    }

    /// Advances a determined region's pending crossing by one fix; returns the new side when the
    /// fix completes the crossing.
    static func step(
        _ entry: inout Entry, distance: Double, accuracy: Double, hysteresis h: Double, seconds: Double,
        at now: Double, configuration: LocationEngine.Configuration
    ) -> RegionState? {
        let other: RegionState = entry.state == .inside ? .outside : .inside
        switch configuration.regionRule {
        case .sustained:
            return sustained(
                &entry, distance: distance, accuracy: accuracy, time: now, sinceFix: seconds < 0 ? nil : seconds,
                configuration: configuration)
        case .dwell:
            let seen = evidence(
                distance: distance, accuracy: accuracy, radius: entry.region.radius, configuration: configuration)
            if seen == .unknown { return nil }
            if seen == entry.state {
                entry.pendingState = nil
            } else if entry.pendingState == nil {
                entry.pendingState = seen
                entry.pendingSince = now
            } else if now - entry.pendingSince >= configuration.regionDwell {
                return seen
            }
            return nil
        case .evidence:
            let r = entry.region.radius
            let margin = entry.state == .inside ? distance - accuracy - (r + h) : (r - h) - distance - accuracy
            let cap = configuration.regionEvidenceClamp * h
            entry.evidence = max(0, entry.evidence + seconds * min(cap, max(-cap, margin)))
            if entry.evidence == 0 {
                entry.pendingState = nil
                return nil
            }
            if entry.pendingState == nil {
                entry.pendingState = other
                entry.pendingSince = now
            }
            var needed = configuration.regionEvidenceSeconds * cap
            if let last = entry.lastCrossing, now - last < configuration.regionRecentCrossingWindow {
                needed *= configuration.regionRecentCrossingFactor
            }
            return entry.evidence >= needed && now - entry.pendingSince >= configuration.regionDwell ? other : nil
        }
    }

    /// The `.sustained` rule (decision 0062) for one fix at fix time `time`, `sinceFix` seconds after
    /// the previous fix the engine evaluated (nil for the first): the new side once clear fixes of it
    /// have held for `regionDwell` seconds.
    static func sustained(
        _ entry: inout Entry, distance: Double, accuracy: Double, time: Double, sinceFix: Double?,
        configuration: LocationEngine.Configuration
    ) -> RegionState? {
        let seen = evidence(
            distance: distance, accuracy: accuracy, radius: entry.region.radius, configuration: configuration)
        // A crossing back soon after the last one must be clear by more, until the user has been seen that far
        // on the side they crossed to: the wander of a stay near the boundary that has just carried the fixes
        // across is likely to carry them back; someone who went through the region, or far from it, is not
        // wandering.
        let extra = configuration.regionRecrossMargin * entry.region.radius
        let deep =
            extra > 0 && seen != .unknown
            && evidence(
                distance: distance, accuracy: accuracy, radius: entry.region.radius, extraMargin: extra,
                configuration: configuration) == seen
        if seen == entry.state {
            if deep { entry.deepSinceCrossing = true }
            entry.pendingState = nil
            return nil
        }
        guard seen != .unknown else { return nil }
        if let last = entry.lastCrossing, time - last < configuration.regionRecrossWindow, extra > 0,
            !entry.deepSinceCrossing, !deep
        {
            return nil
        }
        if entry.pendingState != seen || time - entry.pendingLast > configuration.regionRunGap {
            // The new side began somewhere between the previous fix and this one: halfway, at most
            // half the gap limit back.
            entry.pendingState = seen
            entry.pendingSince = time - min(max(sinceFix ?? 0, 0), configuration.regionEvidenceGap) / 2
            entry.pendingDeep = false
        }
        if deep { entry.pendingDeep = true }
        entry.pendingLast = time
        return time - entry.pendingSince >= configuration.regionDwell ? seen : nil
    }

    /// Applies one valid fix (finite coordinate, accuracy ≥ 0) received at `now`. `crossingAccuracy`, when
    /// given, is the uncertainty a determined region's crossing rule counts for the fix instead of its stated
    /// accuracy (the stay's wander, decision 0062); the first determination always takes the stated one.
    mutating func evaluate(
        _ fix: Fix, at now: Double, crossingAccuracy: Double? = nil, configuration: LocationEngine.Configuration
    ) -> [Change] {
        let previousFixTime = lastEvaluation
        lastEvaluation = now
        let fixTime = fix.timestamp.timeIntervalSince1970
        let previousTimestamp = lastFixTimestamp
        lastFixTimestamp = max(fixTime, previousTimestamp ?? fixTime)
        var candidates: [CircleIndex.Handle] = []
        index.circles(containingLatitude: fix.latitude, longitude: fix.longitude, into: &candidates)
        var toCheck = watched
        toCheck.formUnion(candidates)
        var changes: [Change] = []
        for handle in toCheck.sorted() {
            guard var entry = entries[Int(handle)] else { continue }
            let region = entry.region
            let distance = Geodesic.wgs84.inverse(
                latitude1: region.latitude, longitude1: region.longitude,
                latitude2: fix.latitude, longitude2: fix.longitude
            ).distance
            let h = Self.hysteresis(radius: region.radius, configuration: configuration)
            // The time since the previous fix, if the region saw it (a region outside with no evidence
            // is looked at only for fixes inside its circle): a fix stands for at most the gap limit.
            var seconds = 0.0
            if let previous = previousFixTime, entry.lastFixTime == previous {
                seconds = min(max(0, now - previous), configuration.regionEvidenceGap)
            }
            entry.lastFixTime = now
            // The sustained rule runs on the fixes' own clock, whatever the region saw before.
            let time = configuration.regionRule == .sustained ? fixTime : now
            if configuration.regionRule == .sustained { seconds = previousTimestamp.map { fixTime - $0 } ?? -1 }
            if entry.state == .unknown {
                let seen = Self.evidence(
                    distance: distance, accuracy: fix.horizontalAccuracy, radius: region.radius,
                    configuration: configuration)
                if seen != .unknown {
                    entry.state = seen
                    entry.pendingState = nil
                    changes.append(.determined(region, seen))
                }
            } else if let crossed = Self.step(
                &entry, distance: distance, accuracy: crossingAccuracy ?? fix.horizontalAccuracy, hysteresis: h,
                seconds: seconds, at: time, configuration: configuration)
            {
                entry.deepSinceCrossing = entry.pendingDeep
                entry.state = crossed
                entry.pendingState = nil
                entry.evidence = 0
                entry.lastCrossing = time
                changes.append(.crossed(region, crossed))
            }
            entries[Int(handle)] = entry
            updateWatch(handle)
        }
        return changes
    }
}

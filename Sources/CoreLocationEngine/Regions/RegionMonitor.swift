import Foundation
import CoreLocationGeodesy

/// The app's monitored regions and the boundary rule that turns fixes into crossings.
///
/// **The rule** (documented in `docs/decisions/0005-region-monitoring.md`). For a fix at geodesic
/// distance `d` from a region's centre, with horizontal accuracy `a`, a region of radius `r` and a
/// hysteresis `h = clamp(hysteresisFraction × r, hysteresisMinimum, hysteresisMaximum)`:
/// - the fix is evidence of **inside** when `d + a ≤ r − h` (its whole uncertainty disc lies at
///   least `h` inside the boundary), of **outside** when `d − a ≥ r + h`, and of nothing otherwise:
///   an inaccurate fix never supports a claim its uncertainty cannot;
/// - an undetermined region takes the side of the first evidence at once (`didDetermineState`,
///   no enter/exit: Apple reports no entry for a region the device is already in);
/// - a determined region crosses when evidence for the other side has lasted `dwell` seconds: the
///   crossing is reported at the first fix supporting the new side that arrives at least `dwell`
///   after the first one did, provided no fix supported the old side in between (one would cancel
///   it). Fixes that support nothing neither advance nor cancel a pending crossing.
///
/// Cost per fix: one `CircleIndex` query plus an exact geodesic check of the regions the device
/// is in, is about to cross, or has not determined yet.
struct RegionMonitor: Sendable {
    struct Entry: Sendable {
        var region: MonitoredRegion
        var state: RegionState
        var pendingState: RegionState?
        var pendingSince: Double = 0
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
        distance: Double, accuracy: Double, radius: Double, configuration: LocationEngine.Configuration
    ) -> RegionState {
        let h = hysteresis(radius: radius, configuration: configuration)
        if distance + accuracy <= radius - h { return .inside }
        if distance - accuracy >= radius + h { return .outside }
        return .unknown
    }

    /// Applies one valid fix (finite coordinate, accuracy ≥ 0) received at `now`.
    mutating func evaluate(_ fix: Fix, at now: Double, configuration: LocationEngine.Configuration) -> [Change] {
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
            let seen = Self.evidence(
                distance: distance, accuracy: fix.horizontalAccuracy, radius: region.radius,
                configuration: configuration
            )
            guard seen != .unknown else { continue }
            if entry.state == .unknown {
                entry.state = seen
                entry.pendingState = nil
                changes.append(.determined(region, seen))
            } else if seen == entry.state {
                entry.pendingState = nil
            } else if entry.pendingState == nil {
                entry.pendingState = seen
                entry.pendingSince = now
            } else if now - entry.pendingSince >= configuration.regionDwell {
                entry.state = seen
                entry.pendingState = nil
                changes.append(.crossed(region, seen))
            }
            entries[Int(handle)] = entry
            updateWatch(handle)
        }
        return changes
    }
}

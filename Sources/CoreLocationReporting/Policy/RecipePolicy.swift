import CoreLocationEngine
import CoreLocationGeodesy
import Foundation

/// The classic iOS "share my position" recipe, simulated exactly, for comparison (issue 12).
///
/// A `CLLocationManager` subclass with `minSpeed` 3 m/s, `minFilter` 50 m, `minInterval` 10 s. Every
/// location the manager delivers is uploaded. On each delivered location, if its speed differs from
/// the speed the filter was last set for by more than 10 % (of that speed), the filter becomes
/// `minFilter` below `minSpeed`, else `round(speed) × minInterval`. The manager delivers a fix when
/// it lies at least `distanceFilter` metres (WGS84 geodesic, as the engine measures) from the last
/// delivered one; the first fix is always delivered. A fix with an unknown speed (−1) counts as
/// speed 0; invalid fixes (negative accuracy) are never delivered, as by `CLLocationManager`.
/// Nothing else: no stillness, no screening of poor fixes — that is the point of the comparison.
/// The first delivered fix sets the speed the filter is measured against. See docs/decisions/0022.
public struct RecipePolicy: Sendable, Hashable, Codable {
    public var minSpeed = 3.0
    public var minFilter = 50.0
    public var minInterval = 10.0
    /// The current `distanceFilter`, metres.
    public private(set) var distanceFilter: Double
    /// The speed the filter was last set for.
    public private(set) var filterSpeed: Double?
    private var lastDelivered: ReportPoint?

    public init() {
        distanceFilter = minFilter
    }

    public mutating func handle(_ fix: Fix) -> [ReportDecision] {
        guard fix.horizontalAccuracy >= 0, fix.latitude.isFinite, fix.longitude.isFinite else { return [] }
        let point = ReportPoint(fix)
        if let last = lastDelivered {
            let moved = Geodesic.wgs84.inverse(
                latitude1: last.latitude, longitude1: last.longitude, latitude2: point.latitude,
                longitude2: point.longitude
            ).distance
            guard moved >= distanceFilter else { return [] }
        }
        lastDelivered = point
        let speed = max(fix.speed, 0)
        var reason = "moved ≥ \(Self.metres(distanceFilter)) m"
        if filterSpeed.map({ abs(speed - $0) > 0.1 * $0 }) ?? true {
            filterSpeed = speed
            distanceFilter = speed < minSpeed ? minFilter : speed.rounded() * minInterval
            reason += "; speed \(Self.metres(speed)) m/s sets the filter to \(Self.metres(distanceFilter)) m"
        }
        return [ReportDecision(kind: .track, point: point, decidedAt: fix.timestamp, reason: reason)]
    }

    static func metres(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

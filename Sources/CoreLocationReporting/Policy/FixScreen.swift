import CoreLocationEngine
import Foundation

/// Keeps poor fixes from driving any decision of the bounded policy.
///
/// A fix is *poor* when its position is invalid (negative accuracy, not finite, out of range), less
/// accurate than `maximumAccuracy`, not newer than the last good fix, or a *speed spike*: reaching it
/// from the last good fix would take more than `maximumSpeed`. A genuine jump (a tunnel, a ferry, a
/// receiver that was off) is accepted after `recoveryCount` poor fixes in a row that agree with
/// each other, or after `spikeWindow` seconds without a good fix. The fix's own `speed` field is not
/// trusted at all (it is what fools the recipe).
public struct FixScreen: Sendable, Hashable, Codable {
    public var maximumAccuracy: Double
    public var maximumSpeed: Double
    public var spikeWindow: Double = 60
    public var recoveryCount = 3

    public enum Verdict: Sendable, Hashable {
        case good
        case poor(String)
    }

    private var lastGood: ReportPoint?
    private var rejected: [ReportPoint] = []

    /// - Parameters:
    ///   - maximumAccuracy: metres; 50 by default (a fix that may be 50 m off cannot place the user
    ///     within a 10 m bound, and GNSS fixes outdoors are 3–15 m).
    ///   - maximumSpeed: m/s; 70 by default (250 km/h, faster than the road traffic this is for).
    public init(maximumAccuracy: Double = 50, maximumSpeed: Double = 70) {
        self.maximumAccuracy = maximumAccuracy
        self.maximumSpeed = maximumSpeed
    }

    public mutating func screen(_ fix: Fix) -> Verdict {
        let point = ReportPoint(fix)
        guard fix.horizontalAccuracy >= 0, fix.latitude.isFinite, fix.longitude.isFinite,
            abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
        else { return .poor("invalid position") }
        guard fix.horizontalAccuracy <= maximumAccuracy else {
            return .poor("accuracy \(Int(fix.horizontalAccuracy.rounded())) m worse than \(Int(maximumAccuracy)) m")
        }
        guard let last = lastGood else {
            lastGood = point
            return .good
        }
        let dt = point.time - last.time
        guard dt > 0 else { return .poor("not newer than the last good fix") }
        let speed = SynchronizedDistance.distance(last, point) / dt
        if speed > maximumSpeed, dt < spikeWindow {
            if let previous = rejected.last, point.time > previous.time,
                SynchronizedDistance.distance(previous, point) / (point.time - previous.time) <= maximumSpeed
            {
                rejected.append(point)
            } else {
                rejected = [point]
            }
            if rejected.count >= recoveryCount {
                rejected.removeAll()
                lastGood = point
                return .good
            }
            return .poor("speed spike: \(Int(speed.rounded())) m/s from the last good fix")
        }
        rejected.removeAll()
        lastGood = point
        return .good
    }
}

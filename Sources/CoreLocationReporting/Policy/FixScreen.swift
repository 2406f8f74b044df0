import CoreLocationEngine
import Foundation

/// Keeps poor fixes from driving any decision of the bounded policy.
///
/// A fix is *poor* when its position is invalid (negative accuracy, not finite, out of range), less
/// accurate than `maximumAccuracy`, not newer than the last good fix, or a *jump* by the engine's
/// `JumpScreen` (decision 0063): a step from the last good fix faster than `maximumSpeed`, or than the
/// user could have sped up to from their recent speed at 3 m/s²; a jump's fixes stay poor until one
/// is plausible again from the last good fix (the jump came back: a 500 m spike and back is not
/// movement) or they have agreed among themselves for 60 s (a real relocation). A real fast move is
/// good fix by fix: its steps are at the speed it had. The fix's own `speed` field is not trusted at
/// all (it is what fools the recipe).
public struct FixScreen: Sendable, Hashable, Codable {
    public var maximumAccuracy: Double
    public var maximumSpeed: Double

    public enum Verdict: Sendable, Hashable {
        case good
        case poor(String)
    }

    private var lastGood: ReportPoint?
    private var jumps: JumpScreen

    /// - Parameters:
    ///   - maximumAccuracy: metres; 50 by default (a fix that may be 50 m off cannot place the user
    ///     within a 10 m bound, and GNSS fixes outdoors are 3–15 m).
    ///   - maximumSpeed: m/s; 70 by default (250 km/h, faster than the road traffic this is for).
    public init(maximumAccuracy: Double = 50, maximumSpeed: Double = 70) {
        self.maximumAccuracy = maximumAccuracy
        self.maximumSpeed = maximumSpeed
        var parameters = JumpScreen.Parameters()
        parameters.maximumSpeed = maximumSpeed
        jumps = JumpScreen(parameters: parameters)
    }

    public mutating func screen(_ fix: Fix) -> Verdict {
        let point = ReportPoint(fix)
        guard fix.horizontalAccuracy >= 0, fix.latitude.isFinite, fix.longitude.isFinite,
            abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
        else { return .poor("invalid position") }
        guard fix.horizontalAccuracy <= maximumAccuracy else {
            return .poor("accuracy \(Int(fix.horizontalAccuracy.rounded())) m worse than \(Int(maximumAccuracy)) m")
        }
        if let last = lastGood, point.time <= last.time { return .poor("not newer than the last good fix") }
        guard jumps.screen(fix) == .accepted else {
            let metres = lastGood.map { Int(SynchronizedDistance.distance($0, point).rounded()) } ?? 0
            return .poor("jump: \(metres) m from the last good fix")
        }
        lastGood = point
        return .good
    }
}

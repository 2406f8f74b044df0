import CoreLocationEngine
import Foundation

/// Keeps poor fixes from driving any decision of the bounded policy.
///
/// A fix is *poor* when its position is invalid (negative accuracy, not finite, out of range), less
/// accurate than `maximumAccuracy`, or a *jump* by the engine's rule (`JumpScreen`, decision 0063):
/// a step from the last accepted fix that no vehicle makes from the speed the user had, and the fixes
/// that stay with it until they come back (a receiver's 300 m excursion of 3–40 s, indoors, is not
/// movement) or agree among themselves for a minute (a wrong first fix corrected, a ferry: then they
/// are accepted). The regions and the stay tracker screen their fixes with the same rule, so the
/// reporter and region monitoring never disagree on what was movement. The fix's own `speed` field is
/// not trusted at all (it is what fools the recipe).
///
/// Until 2026-11-29 the reporter had its own spike rule (faster than 70 m/s from the last good fix;
/// accepted after 3 such fixes that agreed with each other): an indoor jump of 3 fixes or more
/// passed it, and the stay was left at the jump (5 of the tuning half's 19 stays that were not
/// silent; issue 35).
public struct FixScreen: Sendable, Hashable, Codable {
    public var maximumAccuracy: Double
    /// The jump rule's parameters.
    public var jumps: JumpScreen.Parameters { screen.parameters }

    public enum Verdict: Sendable, Hashable {
        case good
        case poor(String)
    }

    private var screen: JumpScreen
    private var newest: Double?
    /// The fixes the jump rule turned away since it last accepted one (the newest `rejectedLimit`).
    private var rejected: [Fix] = []
    /// More than a hold's minute at 10 Hz.
    static let rejectedLimit = 1_000

    /// The fixes, oldest first, that were poor when they came and that the newest `.good` verdict showed to be the
    /// user's path after all: a one-way step (a receiver that corrects its position) held for the jump rule's minute
    /// whose fixes agreed with each other. The policy takes them up before the newest fix, so its bound holds on them
    /// too (the real Cerknica walk's 184 m step at 15:40: 19 moving fixes beyond ε while the hold lasted). Empty
    /// after every other verdict.
    public private(set) var released: [Fix] = []

    /// - Parameters:
    ///   - maximumAccuracy: metres; 50 by default (a fix that may be 50 m off cannot place the user
    ///     within a 10 m bound, and GNSS fixes outdoors are 3–15 m).
    ///   - jumps: the jump rule's parameters; the engine's by default (no step faster than 70 m/s,
    ///     250 km/h, faster than the road traffic this is for).
    public init(maximumAccuracy: Double = 50, jumps: JumpScreen.Parameters = JumpScreen.Parameters()) {
        self.maximumAccuracy = maximumAccuracy
        screen = JumpScreen(parameters: jumps)
    }

    public mutating func screen(_ fix: Fix) -> Verdict {
        released.removeAll()
        guard fix.horizontalAccuracy >= 0, fix.latitude.isFinite, fix.longitude.isFinite,
            abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
        else { return .poor("invalid position") }
        guard fix.horizontalAccuracy <= maximumAccuracy else {
            return .poor("accuracy \(Int(fix.horizontalAccuracy.rounded())) m worse than \(Int(maximumAccuracy)) m")
        }
        let time = fix.timestamp.timeIntervalSince1970
        // The policy's state machines need time to move forward; the jump screen would take a repeat
        // that agrees with the last fix.
        if let newest, time <= newest { return .poor("not newer than the last fix") }
        newest = time
        switch screen.screen(fix) {
        case .accepted:
            released = Array(rejected.suffix(screen.releasedCount))
            rejected.removeAll()
            return .good
        case .jump:
            rejected.append(fix)
            if rejected.count > Self.rejectedLimit { rejected.removeFirst(rejected.count - Self.rejectedLimit) }
            return .poor("a jump: no vehicle makes that step from the speed it had (decision 0063)")
        }
    }
}

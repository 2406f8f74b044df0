import CoreLocationEngine
import Foundation

/// A reporting policy by name: `recipe` (the classic iOS recipe, for comparison) or `bounded`
/// (the default). Fixes in, upload decisions out; no clock but the fixes' own timestamps.
public enum ReportPolicy: Sendable {
    case recipe(RecipePolicy)
    case bounded(BoundedPolicy)

    public mutating func handle(_ fix: Fix) -> [ReportDecision] {
        switch self {
        case .recipe(var policy):
            let out = policy.handle(fix)
            self = .recipe(policy)
            return out
        case .bounded(var policy):
            let out = policy.handle(fix)
            self = .bounded(policy)
            return out
        }
    }

    /// When the policy is owed `tick(at:)` if no fix comes first (the bounded policy's silence rule).
    public var nextTick: Date? {
        switch self {
        case .recipe: nil
        case .bounded(let policy): policy.nextTick
        }
    }

    /// Time passing with no fix; decisions only at or after `nextTick`.
    public mutating func tick(at now: Date) -> [ReportDecision] {
        switch self {
        case .recipe:
            return []
        case .bounded(var policy):
            let out = policy.tick(at: now)
            self = .bounded(policy)
            return out
        }
    }

    public mutating func finish() -> [ReportDecision] {
        switch self {
        case .recipe:
            return []
        case .bounded(var policy):
            let out = policy.finish()
            self = .bounded(policy)
            return out
        }
    }

    public var name: String {
        switch self {
        case .recipe: "recipe"
        case .bounded: "bounded"
        }
    }
}

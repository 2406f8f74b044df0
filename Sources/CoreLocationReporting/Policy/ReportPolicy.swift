import CoreLocationEngine

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

/// Why a point is uploaded.
public enum ReportKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A point of the moving track (the simplifier's, the freshness bound's or the recipe's).
    case track
    /// The user settled: one report at the place.
    case arrival
    /// The user left the place.
    case departure
    /// An optional keep-alive while settled (at most hourly).
    case heartbeat
}

import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

/// The recipe on a short synthetic track along the equator, worked out by hand (docs/decisions/0022):
/// minSpeed 3 m/s, minFilter 50 m, minInterval 10 s; the filter changes only on a delivered fix
/// whose speed differs from the one it was last set for by more than 10 %.
@Suite struct RecipePolicyTests {
    /// (t s, x m east, speed m/s, uploaded?, filter after it, m)
    static let table: [(t: Double, x: Double, speed: Double, uploaded: Bool, filter: Double)] = [
        (0, 0, 1, true, 50),        // first fix: delivered; 1 < 3 → minFilter
        (10, 30, 1, false, 50),     // 30 < 50
        (20, 60, 5, true, 50),      // 60 ≥ 50; |5−1| > 0.1 → round(5)×10 = 50
        (25, 100, 10, false, 50),   // 40 < 50
        (30, 160, 10, true, 100),   // 100 ≥ 50; |10−5| > 0.5 → 100
        (35, 210, 10.5, false, 100),  // 50 < 100
        (40, 260, 10.4, true, 100),   // 100 ≥ 100; |10.4−10| = 0.4 ≤ 1.0 → unchanged
        (41, 300, 40, false, 100),    // a noisy speed spike, 40 < 100: not delivered, so harmless
        (50, 360, 40, true, 400),     // 100 ≥ 100; spike delivered: |40−10| > 1 → 400, and it sticks
        (60, 370, 0, false, 400),     // stopped: 10 < 400
        (120, 370, 0, false, 400),    // still stopped, still nothing: the filter is re-evaluated only on delivery
        (200, 700, 2, false, 400),    // 340 < 400
        (210, 770, 2, true, 50),      // 410 ≥ 400; |2−40| > 4 → 2 < 3 → 50
        (220, 800, 2, false, 50),     // 30 < 50
        (230, 830, 2.1, true, 50),    // 60 ≥ 50; |2.1−2| = 0.1 ≤ 0.2 → unchanged
    ]

    @Test func handWorkedTable() {
        var policy = RecipePolicy()
        for (index, row) in Self.table.enumerated() {
            let f = Fix(latitude: 0, longitude: equatorLongitude(row.x), horizontalAccuracy: 5, speed: row.speed,
                        timestamp: epoch.addingTimeInterval(row.t))
            let decisions = policy.handle(f)
            #expect(decisions.count == (row.uploaded ? 1 : 0), "row \(index) (t = \(row.t))")
            #expect(policy.distanceFilter == row.filter, "row \(index) (t = \(row.t))")
            if let decision = decisions.first {
                #expect(decision.kind == .track)
                #expect(decision.point.timestamp == f.timestamp)
            }
        }
    }

    @Test func unknownSpeedCountsAsStandingAndInvalidFixesAreNotDelivered() {
        var policy = RecipePolicy()
        #expect(policy.handle(Fix(latitude: 0, longitude: 0, horizontalAccuracy: -1, timestamp: epoch)).isEmpty)
        #expect(policy.handle(Fix(latitude: 0, longitude: 0, horizontalAccuracy: 5, timestamp: epoch)).count == 1)
        #expect(policy.filterSpeed == 0)
        #expect(policy.distanceFilter == 50)
    }
}

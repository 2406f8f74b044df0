import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

/// Stillness (issue 12, decision 0046): one arrival within the first 5 minutes of a stay, silence, one
/// departure, without giving up ε or the freshness bound on the way in and out.
@Suite struct BoundedPolicyStillnessTests {
    /// Seconds since `epoch` at which `decision` was made.
    private func decided(_ decision: ReportDecision) -> Double { decision.decidedAt.timeIntervalSince(epoch) }

    /// Walk in (300 s at 1.4 m/s), stay 20 min while the receiver's error circles the place at 13 m
    /// (every 2 minutes: no 180 s of it stays within the engine's 25 m of any one fix, as the opposite
    /// point is 26 m away), walk out north.
    private func wanderingStay() -> (fixes: [Fix], moving: [Fix], leave: Double) {
        var fixes: [Fix] = []
        var moving: [Fix] = []
        for i in 0..<300 { fixes.append(fix(x: Double(i) * 1.4, t: Double(i))) }
        moving += fixes
        for i in 300..<1500 {
            let t = Double(i)
            fixes.append(fix(x: 420 + 13 * cos(2 * .pi * t / 120), y: 13 * sin(2 * .pi * t / 120), t: t))
        }
        let start = fixes.count
        for i in 1...200 { fixes.append(fix(x: 420, y: Double(i) * 1.4, t: 1500 + Double(i))) }
        moving += fixes[start...]
        return (fixes, moving, 1500)
    }

    /// The wander keeps the engine's stillness rule from firing; the dwell rule (240 s within 30 m of
    /// their mean) settles the user before the stay is 5 minutes old, and then nothing is said until
    /// the walk out. Before decision 0046 the arrival came from the visit detector, after 5 minutes of
    /// fixes near the place, and the departure re-traced the wander as movement (12 points at ε 10 m).
    @Test(arguments: [nil, 50.0] as [Double?])
    func aWanderingReceiverSettlesByDwellAndStaysSilent(freshness: Double?) throws {
        let (fixes, moving, leave) = wanderingStay()
        let (decisions, arrivals, departures) = settles(fixes, freshness: freshness)
        try #require(arrivals.count == 1 && departures.count == 1)
        #expect(arrivals[0].reason == "settled: within 30 m for 240 s")
        // The dwell window is full about 240 s after the stay begins (at 300 s; a few fixes of the walk in
        // may fit in it too); the settled window opens at 600 s.
        #expect(decided(arrivals[0]) >= 500 && decided(arrivals[0]) < 600, "arrival at \(decided(arrivals[0]))")
        #expect(!decisions.contains { decided($0) > decided(arrivals[0]) && decided($0) < leave })
        // Walking out at 1.4 m/s: past 50 m (freshness) or 100 m (the region) from the place in 36 or 72 s.
        let limit = leave + (freshness == nil ? 90 : 60)
        #expect(decided(departures[0]) > leave && decided(departures[0]) < limit, "departure at \(decided(departures[0]))")
        let atDeparture = decisions.filter { $0.decidedAt == departures[0].decidedAt }
        #expect(atDeparture.count <= 4, "\(atDeparture.count) decisions at the departure")
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let sed = SynchronizedDistance.sed(of: moving.map(ReportPoint.init), against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9)
    }

    /// Freshness off: settled at one end of a place, the user strolls to the other end, 110 m from the
    /// arrival report's fix but within 70 m of the place's centre (most of the stay was spent 60 m
    /// west). Measured from the arrival fix (before decision 0046) that was a departure; measured from
    /// the centre it is the same place. Walking away east afterwards is a departure, once.
    @Test func leavingIsMeasuredFromThePlacesCentre() throws {
        var fixes: [Fix] = []
        var t = 0.0
        func add(_ x: Double) {
            fixes.append(fix(x: x, t: t))
            t += 1
        }
        for i in 0..<200 { add(-Double(200 - i) * 1.4) }  // walk in from the west, to (0, 0)
        for _ in 0..<200 { add(0) }  // still: settles at about 380 s
        for i in 0..<300 { add(-Double(i) * 0.2) }  // a stroll west, to −60 m
        for _ in 0..<1200 { add(-60) }
        for i in 0..<250 { add(-60 - Double(i) * 0.2) }  // to −110 m: 110 m from the arrival fix
        for _ in 0..<120 { add(-110) }
        for i in 0..<250 { add(-110 + Double(i) * 0.2) }  // back to −60 m
        let leaving = t
        for i in 0..<300 { add(-60 + Double(i) * 1.4) }  // walks off east
        var parameters = BoundedPolicy.Parameters()
        parameters.freshness = nil
        let decisions = run(fixes, parameters)
        let kinds = decisions.filter { $0.kind != .track }.map(\.kind)
        #expect(kinds == [.arrival, .departure])
        let departure = try #require(decisions.first { $0.kind == .departure })
        // The centre lies near −55 m: the walk east passes 100 m from it about 110 s after leaving.
        #expect(decided(departure) > leaving + 60 && decided(departure) < leaving + 150, "departure at \(decided(departure))")
        #expect(!decisions.contains { $0.kind == .track && decided($0) > 400 && decided($0) < leaving })
    }

    /// Freshness on: the bound is owed to the walk out, so the departure comes at the first fix more
    /// than 50 m from the arrival report, whichever way the user goes, and the newest report is never
    /// farther than 50 m from any fix before or after the stay.
    @Test func theFreshnessBoundHoldsOnTheWalkOut() throws {
        var fixes: [Fix] = []
        for i in 0..<300 { fixes.append(fix(x: Double(i) * 1.4, t: Double(i))) }
        var source = SeededTrack(seed: 46)
        for i in 300..<1500 {
            fixes.append(fix(x: 420 + 16 * (source.uniform() - 0.5), y: 16 * (source.uniform() - 0.5), t: Double(i)))
        }
        let stayEnd = fixes.count
        for i in 1...200 { fixes.append(fix(x: 420 - Double(i) * 1.4, y: 0, t: 1500 + Double(i))) }
        let decisions = run(fixes, BoundedPolicy.Parameters())
        let arrival = try #require(decisions.first { $0.kind == .arrival })
        let departure = try #require(decisions.first { $0.kind == .departure })
        let first = try #require(fixes[stayEnd...].first {
            SynchronizedDistance.distance(arrival.point, ReportPoint($0)) > 50
        })
        #expect(departure.decidedAt == first.timestamp)
        var newest: ReportPoint?
        var index = 0
        for (n, f) in fixes.enumerated() where n < 300 || n >= stayEnd {
            while index < decisions.count, decisions[index].decidedAt <= f.timestamp {
                newest = decisions[index].point
                index += 1
            }
            if let newest { #expect(SynchronizedDistance.distance(newest, ReportPoint(f)) <= 50 + 1e-9) }
        }
    }
}

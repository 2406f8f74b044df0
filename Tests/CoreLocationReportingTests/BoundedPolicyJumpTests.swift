import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

/// The bounded policy screens jumps by the engine's rule (`JumpScreen`, decision 0063), as region monitoring
/// and the stay tracker do: a receiver's excursion of hundreds of metres and back is not movement, however
/// many fixes it lasts; a one-way step whose fixes the path then continues is, and its fixes are traced.
@Suite struct BoundedPolicyJumpTests {
    private func decided(_ decision: ReportDecision) -> Double { decision.decidedAt.timeIntervalSince(epoch) }

    private var parameters: BoundedPolicy.Parameters {
        var parameters = BoundedPolicy.Parameters()
        parameters.freshness = nil
        return parameters
    }

    /// Walk in, stand 20 minutes with 4 m of noise, walk out. Ten minutes in, the receiver jumps 300 m away for
    /// `fixes` fixes (2 s apart) that agree with each other, and comes back. The rule the reporter had until
    /// issue 35 took 3 such fixes for a real move and reported a departure at the jump (5 of the tuning half's
    /// stays); now nothing is reported between the arrival and the walk out.
    @Test(arguments: [1, 3, 5, 15])
    func aJumpAndBackDuringAStayIsNoDeparture(fixes count: Int) throws {
        var fixes: [Fix] = []
        var track = SeededTrack(seed: UInt64(count))
        for i in 0..<150 { fixes.append(fix(x: Double(i) * 2, t: Double(i) * 2)) }
        let arrive = 300.0
        let leave = arrive + 1200
        let jumpAt = arrive + 600
        var t = arrive
        while t < leave {
            let jumping = t >= jumpAt && t < jumpAt + 2 * Double(count)
            let noise = (x: (track.uniform() - 0.5) * 8, y: (track.uniform() - 0.5) * 8)
            fixes.append(fix(x: 300 + noise.x, y: (jumping ? 300 : 0) + noise.y, t: t))
            t += 2
        }
        for i in 0..<100 { fixes.append(fix(x: 300 + Double(i) * 2.4, t: leave + Double(i) * 2)) }
        let decisions = run(fixes, parameters)
        let arrival = try #require(decisions.first { $0.kind == .arrival })
        #expect(decided(arrival) < arrive + 300)
        let during = decisions.filter { decided($0) > decided(arrival) && decided($0) <= leave }
        #expect(during.isEmpty, "\(during.map { "\(decided($0)) \($0.kind) \($0.reason)" })")
        #expect(decisions.contains { $0.kind == .departure && decided($0) > leave })
    }

    /// Riding at 8 m/s, the receiver steps 184 m sideways in 2 s and the path goes on from there (the real
    /// Cerknica ride at 15:40:02, a fix every 2 s). The jump rule holds the new fixes until they either come back
    /// or, as here, the path continues from them at their own pace; then they are the user's path, taken up in
    /// order, and ε holds on every one of them (held and dropped, 19 of Cerknica's were up to 162 m off the track).
    @Test func aOneWayStepIsTracedOnceThePathContinuesIt() throws {
        var fixes: [Fix] = []
        for i in 0..<60 { fixes.append(fix(x: Double(i) * 16, t: Double(i) * 2)) }
        // After the step the line bends back towards the old one, 184 m off at first, 3 m closer every 2 s.
        for i in 60..<160 {
            let off = max(0, 184 - Double(i - 60) * 3)
            fixes.append(fix(x: Double(i) * 16, y: off, t: Double(i) * 2))
        }
        let decisions = run(fixes, parameters)
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let sed = SynchronizedDistance.sed(of: fixes.map(ReportPoint.init), against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9, "max SED \(sed.max() ?? .infinity) m")
        // The held fixes were decided when the path showed them real, not when each came.
        let stepFix = epoch.timeIntervalSince1970 + 120
        let traced = try #require(decisions.first { $0.point.time >= stepFix && $0.point.time < stepFix + 10 })
        #expect(decided(traced) > traced.point.time - epoch.timeIntervalSince1970)
        #expect(!decisions.contains { $0.kind == .arrival || $0.kind == .departure })
    }
}

import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

@Suite struct BoundedPolicyTests {
    /// The ε bound holds on every fix of seeded noisy tracks (no stops, so every fix is moving),
    /// at 10 m and 25 m, with and without the freshness bound; and the track is much smaller.
    @Test(arguments: [(10.0, 1 as UInt64), (25, 2), (10, 3)])
    func sedBoundHoldsOnEveryFix(epsilon: Double, seed: UInt64) {
        var source = SeededTrack(seed: seed)
        let fixes = source.fixes(segments: 12, noise: 6)
        for freshness in [nil, 50.0] as [Double?] {
            var parameters = BoundedPolicy.Parameters()
            parameters.epsilon = epsilon
            parameters.freshness = freshness
            let decisions = run(fixes, parameters)
            #expect(decisions.allSatisfy { $0.kind == .track })
            let track = decisions.map(\.point).sorted { $0.time < $1.time }
            let sed = SynchronizedDistance.sed(of: fixes.map(ReportPoint.init), against: track)
            #expect((sed.max() ?? .infinity) <= epsilon + 1e-9, "ε \(epsilon), freshness \(String(describing: freshness))")
            #expect(decisions.count < fixes.count / 3)
            if let freshness {
                // Freshness: after each fix, the newest decision so far is within D of it.
                var newest: ReportPoint?
                var index = 0
                for f in fixes {
                    while index < decisions.count, decisions[index].decidedAt <= f.timestamp {
                        newest = decisions[index].point
                        index += 1
                    }
                    if let newest {
                        #expect(SynchronizedDistance.distance(newest, ReportPoint(f)) <= freshness + 1e-9)
                    }
                }
            }
        }
    }

    /// A straight line at constant speed needs its two ends only.
    @Test func straightLineNeedsTwoPoints() {
        let fixes = (0...100).map { fix(x: Double($0) * 10, t: Double($0)) }
        var parameters = BoundedPolicy.Parameters()
        parameters.freshness = nil
        let decisions = run(fixes, parameters)
        #expect(decisions.map(\.point.timestamp) == [fixes[0].timestamp, fixes[100].timestamp])
    }

    /// Walk, stand 30 min (noise of ±8 m), walk away: one arrival, silence, one departure, and ε
    /// holds on the walk in and out.
    @Test func settlesOnceAndLeavesOnce() {
        var fixes: [Fix] = []
        var t = 0.0
        for i in 0..<300 { fixes.append(fix(x: Double(i) * 1.4, t: t)); t += 1 }
        var source = SeededTrack(seed: 9)
        for _ in 0..<1800 {
            fixes.append(fix(x: 420 + 16 * (source.uniform() - 0.5), y: 16 * (source.uniform() - 0.5), t: t))
            t += 1
        }
        let leaving = fixes.count
        for i in 1...300 { fixes.append(fix(x: 420, y: Double(i) * 1.4, t: t)); t += 1 }
        var parameters = BoundedPolicy.Parameters()
        parameters.freshness = nil
        let decisions = run(fixes, parameters)
        let kinds = decisions.map(\.kind)
        #expect(kinds.filter { $0 == .arrival }.count == 1)
        #expect(kinds.filter { $0 == .departure }.count == 1)
        let arrival = decisions.first { $0.kind == .arrival }!.decidedAt.timeIntervalSince(epoch)
        let departure = decisions.first { $0.kind == .departure }!.decidedAt.timeIntervalSince(epoch)
        // Settled 180 s (other's automatic-pause time) after standing still, at most a little later.
        #expect(arrival >= 440 && arrival <= 500, "arrival decided at \(arrival)")
        #expect(!decisions.contains { $0.decidedAt.timeIntervalSince(epoch) > arrival + 1 && $0.decidedAt.timeIntervalSince(epoch) < 2100 })
        #expect(departure > 2100 && departure < 2100 + 120, "departure decided at \(departure)")
        let moving = fixes[0..<300].map(ReportPoint.init) + fixes[leaving...].map(ReportPoint.init)
        let sed = SynchronizedDistance.sed(of: moving, against: decisions.map(\.point).sorted { $0.time < $1.time })
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9)
    }

    /// A heartbeat, when asked for, comes at most hourly while settled.
    @Test func heartbeatAtMostHourly() {
        var fixes: [Fix] = []
        for i in 0..<100 { fixes.append(fix(x: Double(i) * 1.4, t: Double(i))) }
        for i in 100..<(100 + 3 * 3600) { fixes.append(fix(x: 140, t: Double(i))) }
        var parameters = BoundedPolicy.Parameters()
        parameters.heartbeatInterval = 600  // asks for 10 min: held to an hour
        let decisions = run(fixes, parameters)
        let beats = decisions.filter { $0.kind == .heartbeat }.map { $0.decidedAt.timeIntervalSince(epoch) }
        #expect(beats.count == 2 || beats.count == 3)
        for (a, b) in zip(beats, beats.dropFirst()) { #expect(b - a >= 3600) }
    }

    /// Poor fixes never drive a decision: a 2 km spike, and fixes with 200 m accuracy, change nothing.
    @Test func poorFixesChangeNothing() {
        var clean: [Fix] = []
        for i in 0..<200 { clean.append(fix(x: Double(i) * 10, y: 30 * sin(Double(i) / 15), t: Double(i))) }
        var noisy: [Fix] = []
        for (i, f) in clean.enumerated() {
            noisy.append(f)
            if i % 40 == 20 {
                var spike = fix(x: Double(i) * 10 + 2000, t: Double(i) + 0.5, speed: 300)
                spike.speed = 300
                noisy.append(spike)
                noisy.append(fix(x: Double(i) * 10 - 500, y: 400, t: Double(i) + 0.7, accuracy: 200))
            }
        }
        var parameters = BoundedPolicy.Parameters()
        let a = run(clean, parameters)
        let b = run(noisy, parameters)
        #expect(a == b)
        parameters.freshness = nil
        #expect(run(clean, parameters) == run(noisy, parameters))
    }
}

import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

/// Issue 35: the reporter's jump screen (decision 0063) and its stillness in a stay whose fixes wander
/// (decision 0064), `--epsilon 10 --freshness off`.
@Suite struct BoundedPolicyJumpTests {
    static var parameters: BoundedPolicy.Parameters {
        var p = BoundedPolicy.Parameters()
        p.freshness = nil
        return p
    }

    /// A walk at 1.4 m/s with a 500 m jump north lasting 5 s (1 Hz), then back: none of the jump's fixes
    /// is uploaded, and the uploaded track keeps every other fix within ε.
    @Test(arguments: [5, 30])
    func a500MetreSpikeAndBackIsNotMovement(seconds: Int) throws {
        var fixes: [Fix] = []
        for i in 0..<600 {
            let spike = i >= 300 && i < 300 + seconds
            fixes.append(fix(x: Double(i) * 1.4, y: spike ? 500 : 0, t: Double(i)))
        }
        let decisions = run(fixes, Self.parameters)
        #expect(!decisions.contains { abs($0.point.latitude - fixes[300].latitude) < 1e-6 })
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let good = fixes.enumerated().filter { !($0.offset >= 300 && $0.offset < 300 + seconds) }.map { ReportPoint($0.element) }
        let sed = SynchronizedDistance.sed(of: good, against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-6)
    }

    /// A real fast move: standing 60 s, then a car speeding up at 3 m/s² to 33 m/s, fixes every 5 s: every fix
    /// is good and the track keeps them within ε.
    @Test func aRealFastMoveIsMovement() throws {
        var fixes: [Fix] = []
        var x = 0.0
        var t = 0.0
        while t < 600 {
            fixes.append(fix(x: x, t: t))
            let speed = t < 60 ? 0 : min(33, 3 * (t - 60))
            x += speed * 5
            t += 5
        }
        var policy = BoundedPolicy(parameters: Self.parameters)
        var decisions: [ReportDecision] = []
        for f in fixes { decisions += policy.handle(f) }
        decisions += policy.finish()
        #expect(policy.poorFixes == 0)
        let sed = SynchronizedDistance.sed(of: fixes.map(ReportPoint.init), against: decisions.map(\.point))
        #expect((sed.max() ?? .infinity) <= 10 + 1e-6)
    }

    /// A 90 min stay whose 1 Hz fixes wander 150 m (Gauss–Markov, 75 m RMS radial, 2 min correlation), 5 m stated
    /// accuracy, between two walks: the user is settled within the stay's first 10 minutes and nothing is
    /// uploaded after that until the walk out, whose departure comes within 4 minutes of leaving.
    @Test(arguments: [UInt64(3), 4, 5])
    func aStayWandering150MetresIsSilent(seed: UInt64) throws {
        var random = SeededTrack(seed: seed)
        func gaussian() -> Double {
            (-2 * log(max(random.uniform(), 1e-12))).squareRoot() * cos(2 * .pi * random.uniform())
        }
        var fixes: [Fix] = []
        var t = 0.0
        for i in 0..<300 {
            fixes.append(fix(x: Double(i - 300) * 1.4, t: t))
            t += 1
        }
        let arrived = t
        var (x, y) = (0.0, 0.0)
        let sigma = 75 / 2.0.squareRoot()
        let a = exp(-1.0 / 120)
        for _ in 0..<5400 {
            x = a * x + sigma * (1 - a * a).squareRoot() * gaussian()
            y = a * y + sigma * (1 - a * a).squareRoot() * gaussian()
            fixes.append(fix(x: x, y: y, t: t))
            t += 1
        }
        let left = t
        for i in 1...600 {
            fixes.append(fix(x: x + Double(i) * 1.4, y: y, t: t))
            t += 1
        }
        let decisions = run(fixes, Self.parameters)
        let during = decisions.filter {
            let d = $0.decidedAt.timeIntervalSince(epoch)
            return d > arrived + 600 && d < left
        }
        #expect(during.isEmpty, "\(during.map { "\($0.kind) \($0.reason)" })")
        let departure = try #require(decisions.first { $0.kind == .departure && $0.decidedAt.timeIntervalSince(epoch) >= left })
        #expect(departure.decidedAt.timeIntervalSince(epoch) - left <= 240)
    }
}

import CoreLocationEngine
import CoreLocationReporting
import Foundation
import Testing

/// Stays whose fixes wander 50–150 m around a building (issue 35, decision 0064's reporter section): the stay
/// tracker settles them and tells their wander from leaving; the walk out is traced back to when it began.
@Suite struct BoundedPolicyWanderTests {
    private func decided(_ decision: ReportDecision) -> Double { decision.decidedAt.timeIntervalSince(epoch) }

    /// The receiver's error: a first-order Gauss–Markov process per axis (RMS `sigma`, correlated over `tau`),
    /// Benchmarks/noise's model of a phone indoors (50–75 m RMS, 2 min) and outdoors (3 m, 20 s).
    private struct Wander {
        var source: SeededTrack
        var east = 0.0
        var north = 0.0

        mutating func gaussian() -> Double {
            let u = max(source.uniform(), 1e-12)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * source.uniform())
        }

        mutating func step(dt: Double, sigma: Double, tau: Double) -> (Double, Double) {
            let decay = exp(-dt / tau)
            let kick = sigma * (1 - decay * decay).squareRoot()
            east = east * decay + kick * gaussian()
            north = north * decay + kick * gaussian()
            return (east, north)
        }
    }

    /// Walk in from the west at 1.2 m/s (300 s), stay `stay` seconds at (0, 0) with the indoor wander, walk out
    /// north at 1.2 m/s (`out` seconds); a fix every 2 s. The walk's fixes carry the outdoor error, the first ones
    /// out still the indoor error as it decays.
    /// `quiet`: seconds after leaving in which the receiver records nothing.
    private func wanderingStay(
        seed: UInt64, sigma: Double = 40, stay: Double = 2400, out: Double = 400, quiet: Range<Double>? = nil
    ) -> (fixes: [Fix], moving: [Fix], arrive: Double, leave: Double) {
        var wander = Wander(source: SeededTrack(seed: seed))
        var fixes: [Fix] = []
        var moving: [Fix] = []
        var t = 0.0
        while t < 300 {
            let (e, n) = wander.step(dt: 2, sigma: 3, tau: 20)
            let f = fix(x: -360 + 1.2 * t + e, y: n, t: t)
            fixes.append(f)
            moving.append(f)
            t += 2
        }
        while t < 300 + stay {
            let (e, n) = wander.step(dt: 2, sigma: sigma, tau: 120)
            fixes.append(fix(x: e, y: n, t: t))
            t += 2
        }
        while t < 300 + stay + out {
            let (e, n) = wander.step(dt: 2, sigma: 3, tau: 20)
            let f = fix(x: e, y: 1.2 * (t - 300 - stay) + n, t: t)
            if !(quiet?.contains(t - 300 - stay) ?? false) {
                fixes.append(f)
                moving.append(f)
            }
            t += 2
        }
        return (fixes, moving, 300, 300 + stay)
    }

    private func parameters(wandering: Bool) -> BoundedPolicy.Parameters {
        var parameters = BoundedPolicy.Parameters()
        parameters.freshness = nil
        parameters.stays = wandering ? BoundedPolicy.Parameters.wanderingStays : nil
        return parameters
    }

    /// A 40 min stay whose fixes wander 40 m RMS per axis (56 m from the place, RMS; beyond 100 m at times): one arrival within its first 5 minutes,
    /// nothing until the user has left, and ε on every fix of the walks in and out. Without the tracker (the rules
    /// of 0046–0057) the wander is traced as movement and left and re-entered: the window is not silent.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aStayWanderingAroundABuildingIsSilentAndItsWalkOutTraced(seed: UInt64) throws {
        let (fixes, moving, arrive, leave) = wanderingStay(seed: seed)
        // The wander is what the rules on a fixed radius cannot hold: fixes past their 100 m.
        let centre = ReportPoint(fix(x: 0, t: 0))
        let farthest = fixes.filter { $0.timestamp.timeIntervalSince(epoch) > arrive }
            .filter { $0.timestamp.timeIntervalSince(epoch) < leave }
            .map { SynchronizedDistance.distance(centre, ReportPoint($0)) }.max() ?? 0
        try #require(farthest > 100, "the stay's fixes reach \(farthest) m")
        let decisions = run(fixes, parameters(wandering: true))
        let arrival = try #require(decisions.first { $0.kind == .arrival })
        #expect(decided(arrival) < arrive + 300, "arrival at \(decided(arrival))")
        let inWindow = decisions.filter { decided($0) >= arrive + 300 && decided($0) <= leave }
        #expect(inWindow.isEmpty, "\(inWindow.count) decisions in the settled window: \(inWindow.prefix(3).map { "\(decided($0)) \($0.reason)" }); arrival \(decided(arrival)) \(arrival.reason)")
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let sed = SynchronizedDistance.sed(of: moving.map(ReportPoint.init), against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9, "max SED \(sed.max() ?? .infinity) m")

        let before = run(fixes, parameters(wandering: false))
        #expect(before.contains { decided($0) >= arrive + 300 && decided($0) <= leave })
    }

    /// The walk out's retrace starts no later than the walk did: the tracker ends the stay a minute or more after
    /// the user left (the fixes must lie outside 150–200 m for 60 s), and the fixes of that minute and before are
    /// owed ε. Extrapolated back along the walk, the start lies before the labelled departure; the last fix near
    /// the centre would lie after it whenever the indoor error pushed the walk's first fixes sideways.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func theWalkOutIsTracedFromBeforeTheUserLeft(seed: UInt64) throws {
        let (fixes, _, _, leave) = wanderingStay(seed: seed, stay: 1200)
        let decisions = run(fixes, parameters(wandering: true))
        let departure = try #require(decisions.first { $0.kind == .departure && decided($0) > leave })
        let traced = decisions.filter { $0.decidedAt == departure.decidedAt }.map(\.point.time).min()
        let start = try #require(traced) - epoch.timeIntervalSince1970
        #expect(start <= leave, "walk out traced from \(start), the user left at \(leave)")
    }

    /// The receiver stops recording for two minutes 150 s into the walk out (near the envelope's edge; synth-26 of
    /// the tuning half): the tracker ends the stay when it hears again, far away, with no walk since to fit. The
    /// retrace starts from the last fix within half a spread of the centre, a fix surely at the place. With the walk
    /// put back by one spread and a fallback of one spread (before issue 35's fifth pass) the walk's first fixes,
    /// still carrying the indoor error, were taken for the stay's: 6 of these 20 seeds broke ε. Not solved: a
    /// receiver that goes quiet 60–120 s into the walk (7–9 of 20 seeds still break ε there, from 12–17; decision
    /// 0064's fifth section).
    @Test func aWalkOutTheReceiverStopsHearingIsTracedFromThePlace() throws {
        var before = parameters(wandering: true)
        before.walkOutSpreads = 1
        before.walkOutFallbackSpreads = 1
        var brokenBefore = 0
        for seed in 51...70 as ClosedRange<UInt64> {
            let (fixes, moving, _, leave) = wanderingStay(seed: seed, stay: 1200, out: 400, quiet: 150..<270)
            let walkOut = moving.filter { $0.timestamp.timeIntervalSince(epoch) > leave }.map(ReportPoint.init)
            func maxSED(_ parameters: BoundedPolicy.Parameters) -> Double {
                let track = run(fixes, parameters).map(\.point).sorted { $0.time < $1.time }
                return SynchronizedDistance.sed(of: walkOut, against: track).max() ?? .infinity
            }
            let now = maxSED(parameters(wandering: true))
            #expect(now <= 10 + 1e-9, "seed \(seed): max SED \(now) m")
            if maxSED(before) > 10 + 1e-9 { brokenBefore += 1 }
        }
        #expect(brokenBefore > 0, "the seeds show the case the rule was changed for")
    }

    /// The input ends while the user walks away, just past the stay's envelope (the tracker would end the stay
    /// 30 s later): the fixes walked are traced at the end, not left to the segment from the arrival report.
    @Test func aWalkOutCutByTheEndOfInputIsTraced() throws {
        let (fixes, moving, _, leave) = wanderingStay(seed: 21, stay: 1200, out: 170)
        let decisions = run(fixes, parameters(wandering: true))
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let walkOut = moving.filter { $0.timestamp.timeIntervalSince(epoch) > leave }
        let sed = SynchronizedDistance.sed(of: walkOut.map(ReportPoint.init), against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9, "max SED \(sed.max() ?? .infinity) m")
    }

    /// A stroll round a city block (an 80–120 m square at 0.8 m/s, four laps, outdoor error) between two straight
    /// walks: its fixes stay within the tracker's envelope for 7–10 minutes a lap, as a wander's do, but its moves
    /// keep their direction between corners (the real Lyon walk that kept the rule off by default, decision 0064).
    /// It is no stay: no arrival, and ε holds on every fix. With the persistence test off the tracker settles it.
    /// (Smaller squares, or slower, the visit detector settles with or without the tracker: not this rule's.)
    @Test(arguments: [31, 32, 33] as [UInt64], [(80.0, 0.8), (100, 0.8), (120, 0.8)])
    func aWalkRoundABlockIsNoStay(seed: UInt64, block: (side: Double, speed: Double)) throws {
        let (side, speed) = block
        var wander = Wander(source: SeededTrack(seed: seed))
        var fixes: [Fix] = []
        var t = 0.0
        func add(_ x: Double, _ y: Double) {
            let (e, n) = wander.step(dt: 2, sigma: 3, tau: 20)
            fixes.append(fix(x: x + e, y: y + n, t: t))
            t += 2
        }
        while t < 300 { add(-390 - side / 2 + 1.3 * t, -side / 2) }
        let lap = 4 * side / speed
        while t < 300 + 4 * lap {
            let along = (t - 300).truncatingRemainder(dividingBy: lap) * speed
            let leg = min(Int(along / side), 3)
            let d = along - Double(leg) * side
            let h = side / 2
            let (x, y): (Double, Double) = [(-h + d, -h), (h, -h + d), (h - d, h), (-h, h - d)][leg]
            add(x, y)
        }
        let away = t
        while t < away + 300 { add(-side / 2, -side / 2 - 1.3 * (t - away)) }

        let decisions = run(fixes, parameters(wandering: true))
        #expect(!decisions.contains { $0.kind == .arrival }, "\(decisions.filter { $0.kind == .arrival }.map(\.reason))")
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        let sed = SynchronizedDistance.sed(of: fixes.map(ReportPoint.init), against: track)
        #expect((sed.max() ?? .infinity) <= 10 + 1e-9, "max SED \(sed.max() ?? .infinity) m")

        var persistenceOff = parameters(wandering: true)
        persistenceOff.wanderPersistence = .infinity
        #expect(run(fixes, persistenceOff).contains { $0.kind == .arrival })
    }

    /// After a stay whose fixes wander (20 m RMS), the user walks once round the place, 90 m out — inside the
    /// tracker's envelope (at least 100 m), so the tracker would hold the stay through the whole walk — then away.
    /// The walk's moves keep their direction over the tracker's window, and it is traced within ε. With the
    /// walking-away test off, the lap is swallowed by the stay.
    @Test(arguments: [41, 42, 43] as [UInt64])
    func aWalkRoundThePlaceInsideTheEnvelopeIsTraced(seed: UInt64) throws {
        var wander = Wander(source: SeededTrack(seed: seed))
        var fixes: [Fix] = []
        var walking: [Fix] = []
        var t = 0.0
        func add(_ x: Double, _ y: Double, sigma: Double, tau: Double, moving: Bool) {
            let (e, n) = wander.step(dt: 2, sigma: sigma, tau: tau)
            let f = fix(x: x + e, y: y + n, t: t)
            fixes.append(f)
            if moving { walking.append(f) }
            t += 2
        }
        while t < 300 { add(-360 + 1.2 * t, 0, sigma: 3, tau: 20, moving: true) }
        while t < 1200 { add(0, 0, sigma: 15, tau: 120, moving: false) }
        let radius = 90.0
        let out = t
        while t < out + radius / 1.2 { add(0, 1.2 * (t - out), sigma: 3, tau: 20, moving: true) }
        let round = t
        let lap = 2 * .pi * radius / 1.2
        while t < round + lap {
            let angle = (t - round) * 1.2 / radius
            add(radius * sin(angle), radius * cos(angle), sigma: 3, tau: 20, moving: true)
        }
        let away = t
        while t < away + 300 { add(0, radius + 1.2 * (t - away), sigma: 3, tau: 20, moving: true) }

        func maxSED(_ parameters: BoundedPolicy.Parameters) -> Double {
            let track = run(fixes, parameters).map(\.point).sorted { $0.time < $1.time }
            return SynchronizedDistance.sed(of: walking.map(ReportPoint.init), against: track).max() ?? .infinity
        }
        #expect(maxSED(parameters(wandering: true)) <= 10 + 1e-9)
        var off = parameters(wandering: true)
        off.walkAwayPersistence = .infinity
        #expect(maxSED(off) > 10)
    }
}

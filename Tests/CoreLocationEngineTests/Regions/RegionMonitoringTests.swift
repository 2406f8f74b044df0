import Foundation
import Testing

@testable import CoreLocationEngine

@Suite struct RegionMonitoringTests {
    @Test func startingReportsStartAndDeterminesTheStateWithoutAnEntry() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        #expect(d.poweredSources == [gnss.id], "monitoring needs a source even without location updates")
        d.feed(home.latitude, home.longitude)
        #expect(d.trace(app) == ["start:home", "in:home"])
        #expect(d.actions.contains { $0.action == .storeRegion(StoredRegion(region: home, state: .inside)) })
    }

    /// A driver whose engine uses decision 0019's evidence rule (kept for comparison since decision 0062).
    static func evidenceDriver() -> EngineDriver {
        var configuration = LocationEngine.Configuration()
        configuration.regionRule = .evidence
        var d = EngineDriver(engine: LocationEngine(sources: [gnss], configuration: configuration))
        d.send(.client(app, .register(label: "test", authorization: whenInUse)))
        return d
    }

    /// Distances from the centre of a 200 m region (hysteresis 20 m) and the crossing rule of
    /// decision 0019 (`.evidence`; the default's is in `SustainedCrossingTests`): a fix's evidence for inside is its margin m = 180 − d − a metres, counted per
    /// second up to 2.5 h = 50 m; the entry needs 30 s × 50 m = 1500 m·s of it, and 20 s at least.
    @Test func crossingNeedsEvidenceThatScalesWithItsAmbiguity() {
        var d = Self.evidenceDriver()
        d.send(.client(app, .startMonitoring(home)))
        func at(_ metres: Double, accuracy: Double = 5) {
            let p = point(from: home.latitude, home.longitude, azimuth: 30, metres: metres)
            d.feed(p.0, p.1, accuracy: accuracy)
        }
        at(400)
        #expect(d.trace(app) == ["start:home", "out:home"])
        // Just inside the boundary, but not 20 m + accuracy inside: no evidence, no entry, ever.
        for _ in 0..<600 {
            d.advance(by: 1)
            at(190)
        }
        #expect(d.trace(app).count == 2)
        // Deep inside with a 300 m accuracy: the fix cannot support the claim.
        for _ in 0..<600 {
            d.advance(by: 1)
            at(0, accuracy: 300)
        }
        #expect(d.trace(app).count == 2)
        // Barely beyond the band (168 m, accuracy 5: m = 7 m): 1500 m·s take 215 s (1505).
        for _ in 0..<214 {
            d.advance(by: 1)
            at(168)
        }
        #expect(d.trace(app).count == 2, "214 s of weak evidence (1498 m·s) is not enough")
        d.advance(by: 1)
        at(168)
        #expect(d.trace(app) == ["start:home", "out:home", "enter:home", "in:home"])
        // Deep outside (1 km: m capped at 50 m): 30 s, times 3 within 10 min of the entry: 90 s.
        for _ in 0..<89 {
            d.advance(by: 1)
            at(1000)
        }
        #expect(d.trace(app).count == 4, "a crossing back within 10 min needs three times the evidence")
        d.advance(by: 1)
        at(1000)
        #expect(d.trace(app).suffix(2) == ["exit:home", "out:home"])
        // Long after that exit, clear evidence is enough after 30 s: the 30th deep fix enters.
        d.advance(by: 600)
        at(1000)
        // (that fix lies outside the circle: the region does not look at it, so the next fix,
        // the region's first since, stands for no time; 30 more make 1500 m·s)
        for _ in 0..<30 {
            d.advance(by: 1)
            at(0)
        }
        #expect(d.trace(app).count == 6)
        d.advance(by: 1)
        at(0)
        #expect(d.trace(app).suffix(2) == ["enter:home", "in:home"])
    }

    /// Fixes on the believed side take evidence back (decision 0019): jitter that spends as long
    /// outside as inside never crosses; mostly-inside jitter does, later than clean fixes would.
    /// (Decision 0007's rule let one contrary fix cancel everything, which on real noisy tracks
    /// delayed true crossings while still letting correlated jitter cross.)
    @Test func contraryFixesTakeEvidenceBack() {
        var d = Self.evidenceDriver()
        d.send(.client(app, .startMonitoring(home)))
        let inside = point(from: home.latitude, home.longitude, azimuth: 0, metres: 100)
        let outside = point(from: home.latitude, home.longitude, azimuth: 0, metres: 300)
        d.feed(outside.0, outside.1)
        for second in 0..<600 {
            d.advance(by: 1)
            // 10 s in (+50 m·s each), 10 s out (−50 m·s each), repeatedly: no net evidence.
            let p = second % 20 < 10 ? inside : outside
            d.feed(p.0, p.1)
        }
        #expect(d.trace(app) == ["start:home", "out:home"])
        var entered: Double?
        for second in 0..<120 {
            d.advance(by: 1)
            // 15 s in, 1 s out: +700 m·s per 16 s.
            let p = second % 16 == 15 ? outside : inside
            d.feed(p.0, p.1)
            if entered == nil, d.trace(app).contains("enter:home") { entered = Double(second + 1) }
        }
        // Seconds 1–15 in (750), 16 out (700), 17–31 in (1450), 32 out (1400), 33, 34 in: 1500.
        #expect(entered == 34)
    }

    @Test func notifyFlagsSilenceEnterOrExitButNotTheState() {
        var d = driver()
        var quiet = home
        quiet.notifyOnEntry = false
        d.send(.client(app, .startMonitoring(quiet)))
        let outside = point(from: home.latitude, home.longitude, azimuth: 90, metres: 500)
        d.feed(outside.0, outside.1)
        // Clear evidence for 30 s, then for 90 s: an entry and an exit. A minute without a fix before each
        // move, so that 500 m are a trip, not a jump (decision 0063).
        d.advance(by: 60)
        for _ in 0..<30 {
            d.advance(by: 1)
            d.feed(home.latitude, home.longitude)
        }
        d.advance(by: 60)
        for _ in 0..<90 {
            d.advance(by: 1)
            d.feed(outside.0, outside.1)
        }
        #expect(d.trace(app) == ["start:home", "out:home", "in:home", "exit:home", "out:home"])
    }

    @Test func everyClientOfTheAppHearsCrossingsButOnlyTheCallerHearsItsStart() {
        var d = driver()
        let other = ClientID(2)
        d.send(.client(other, .register(label: "second", authorization: whenInUse)))
        d.send(.client(app, .startMonitoring(home)))
        d.feed(home.latitude, home.longitude)
        #expect(d.trace(app) == ["start:home", "in:home"])
        #expect(d.trace(other) == ["in:home"])
    }

    @Test func requestStateAnswersFromMemoryOrWaitsForTheDetermination() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        d.send(.client(app, .requestRegionState(identifier: "home")))
        #expect(d.engine.nextDeadline == 10)
        d.advance(by: 10)
        #expect(d.trace(app) == ["start:home", "unknown:home"], "no fix within 10 s: the state is unknown")
        d.feed(home.latitude, home.longitude)
        d.send(.client(app, .requestRegionState(identifier: "home")))
        #expect(d.trace(app) == ["start:home", "unknown:home", "in:home", "in:home"])
        d.send(.client(app, .requestRegionState(identifier: "elsewhere")))
        #expect(d.trace(app).last == "fail:elsewhere:notMonitored")
    }

    @Test func stoppingForgetsTheRegionAndPowersTheSourceDown() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        d.send(.client(app, .stopMonitoring(identifier: "home")))
        #expect(d.engine.monitoredRegions.isEmpty)
        #expect(d.poweredSources.isEmpty)
        #expect(d.actions.contains { $0.action == .forgetRegion(identifier: "home") })
    }

    @Test func restoredRegionsKeepTheirStateAndReportTheCrossingAfterARestart() {
        var d = driver()
        d.send(.restoreRegions([StoredRegion(region: home, state: .inside)]))
        #expect(d.trace(app).isEmpty, "restoring tells nobody anything")
        let outside = point(from: home.latitude, home.longitude, azimuth: 180, metres: 1000)
        // The first fix after the restart stands for no time; 30 more seconds of clear evidence.
        for _ in 0...30 {
            d.feed(outside.0, outside.1)
            d.advance(by: 1)
        }
        #expect(d.trace(app) == ["exit:home", "out:home"])
    }
}

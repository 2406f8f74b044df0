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

    /// Distances from the centre of a 200 m region (hysteresis 20 m) and the crossing rule:
    /// inside evidence needs d + a ≤ 180, outside evidence d − a ≥ 220, and 20 s of it.
    @Test func crossingNeedsEvidenceBeyondTheHysteresisForTheDwellTime() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        func at(_ metres: Double, accuracy: Double = 5) {
            let p = point(from: home.latitude, home.longitude, azimuth: 30, metres: metres)
            d.feed(p.0, p.1, accuracy: accuracy)
        }
        at(400)
        #expect(d.trace(app) == ["start:home", "out:home"])
        // Just inside the boundary, but not 20 m + accuracy inside: no evidence, no entry, ever.
        for _ in 0..<60 {
            d.advance(by: 1)
            at(190)
        }
        #expect(d.trace(app).count == 2)
        // Deep inside with a 300 m accuracy: the fix cannot support the claim.
        for _ in 0..<60 {
            d.advance(by: 1)
            at(0, accuracy: 300)
        }
        #expect(d.trace(app).count == 2)
        // Good evidence: the entry comes at the first supporting fix ≥ 20 s after the first one.
        d.advance(by: 1)
        at(170)
        let first = d.now
        for _ in 0..<19 {
            d.advance(by: 1)
            at(170)
        }
        #expect(d.trace(app).count == 2, "19 s of evidence is not enough")
        d.advance(by: 1)
        at(170)
        #expect(d.now - first == 20)
        #expect(d.trace(app) == ["start:home", "out:home", "enter:home", "in:home"])
    }

    @Test func aContraryFixCancelsAPendingCrossing() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        let inside = point(from: home.latitude, home.longitude, azimuth: 0, metres: 100)
        let outside = point(from: home.latitude, home.longitude, azimuth: 0, metres: 300)
        d.feed(outside.0, outside.1)
        for second in 0..<120 {
            d.advance(by: 1)
            // 15 s in, 1 s out, repeatedly: never 20 s of uninterrupted inside evidence.
            let p = second % 16 == 15 ? outside : inside
            d.feed(p.0, p.1)
        }
        #expect(d.trace(app) == ["start:home", "out:home"])
    }

    @Test func notifyFlagsSilenceEnterOrExitButNotTheState() {
        var d = driver()
        var quiet = home
        quiet.notifyOnEntry = false
        d.send(.client(app, .startMonitoring(quiet)))
        let outside = point(from: home.latitude, home.longitude, azimuth: 90, metres: 500)
        d.feed(outside.0, outside.1)
        for _ in 0...20 {
            d.advance(by: 1)
            d.feed(home.latitude, home.longitude)
        }
        for _ in 0...20 {
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
        for _ in 0...20 {
            d.feed(outside.0, outside.1)
            d.advance(by: 1)
        }
        #expect(d.trace(app) == ["exit:home", "out:home"])
    }
}

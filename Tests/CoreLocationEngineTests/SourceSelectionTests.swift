import Foundation
import CoreLocationEngine
import Testing

@Suite struct SourceSelectionTests {
    @Test func kilometreClientPowersOnlyTheCheapSource() {
        var d = driver([gnss, coarse])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 3000))))
        #expect(d.poweredSources == [coarse.id])
    }

    @Test func mostDemandingClientDecides() {
        var d = driver([gnss, coarse])
        let navigator = ClientID(2)
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 3000))))
        d.send(.client(navigator, .register(label: "nav", authorization: whenInUse)))
        d.send(.client(navigator, .startUpdates(UpdateRequest(desiredAccuracy: -2))))
        #expect(d.poweredSources == [gnss.id])
        d.send(.client(navigator, .stopUpdates))
        #expect(d.poweredSources == [coarse.id])
        d.send(.client(app, .stopUpdates))
        #expect(d.poweredSources.isEmpty)
    }

    @Test func reducedAccuracyClientNeverPowersTheReceiver() {
        var d = driver([gnss, coarse], authorization: reducedWhenInUse)
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: -2))))
        #expect(d.poweredSources == [coarse.id])
    }

    @Test func silentSourceGetsAFallbackAndFinishedOneIsDropped() {
        let cheapGood = SourceDescriptor(id: SourceID("a"), kind: "x", expectedAccuracy: 5, powerCost: 1, isSimulated: true)
        let dearGood = SourceDescriptor(id: SourceID("b"), kind: "x", expectedAccuracy: 5, powerCost: 50, isSimulated: true)
        var d = driver([cheapGood, dearGood])
        d.send(.client(app, .startUpdates(UpdateRequest())))
        #expect(d.poweredSources == [cheapGood.id])
        d.send(.source(cheapGood.id, .unavailable(reason: "no fix")))
        #expect(d.poweredSources == [cheapGood.id, dearGood.id])
        d.send(.source(cheapGood.id, .fix(fix(1, 1))))
        #expect(d.poweredSources == [cheapGood.id])
        d.send(.source(cheapGood.id, .finished))
        #expect(d.poweredSources == [dearGood.id])
    }

    @Test func onTimeIsCountedPerSource() {
        var d = driver([gnss, coarse])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 3000))))
        d.advance(to: 50)
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 5))))
        d.advance(to: 80)
        d.send(.client(app, .stopUpdates))
        let status = d.engine.status(at: 200)
        #expect(status.sources.map(\.onTime) == [30, 50])
    }
}

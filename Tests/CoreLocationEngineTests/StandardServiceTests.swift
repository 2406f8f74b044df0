import Foundation
import CoreLocationEngine
import Testing

@Suite struct StandardServiceTests {
    @Test func deniedClientGetsOneDeniedErrorAndNoPower() {
        var d = driver(authorization: ClientAuthorization(level: .denied))
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.send(.source(gnss.id, .fix(fix(48.85, 2.29))))
        d.advance(by: 3600)
        #expect(d.failures(of: app) == [.denied])
        #expect(d.deliveries(to: app).isEmpty)
        #expect(d.poweredSources.isEmpty)
    }

    @Test func undeterminedClientWaitsThenStartsWhenAuthorized() {
        var d = driver(authorization: ClientAuthorization(level: .notDetermined))
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.advance(by: 100)
        #expect(d.poweredSources.isEmpty)
        #expect(d.failures(of: app).isEmpty)
        d.send(.client(app, .setAuthorization(whenInUse)))
        #expect(d.poweredSources == [gnss.id])
        d.send(.source(gnss.id, .fix(fix(48.85, 2.29))))
        #expect(d.deliveries(to: app).map { $0.fixes.map(\.latitude) } == [[48.85]])
    }

    @Test func revokingAuthorizationReportsDeniedAndPowersDown() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.send(.source(gnss.id, .fix(fix(48.85, 2.29))))
        d.send(.client(app, .setAuthorization(ClientAuthorization(level: .denied))))
        d.send(.source(gnss.id, .fix(fix(48.86, 2.29))))
        #expect(d.deliveries(to: app).count == 1)
        #expect(d.failures(of: app) == [.denied])
        #expect(d.poweredSources.isEmpty)
    }

    @Test func distanceFilterDeliversOnlyAfterMovingThatFar() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest(distanceFilter: 10))))
        // 100 fixes 1.05 m apart along the equator.
        for i in 0..<100 {
            let (lat, lon) = east(of: 0, 0, metres: Double(i) * 1.05)
            d.send(.source(gnss.id, .fix(fix(lat, lon, at: Double(i)))))
            d.advance(by: 1)
        }
        let delivered = d.deliveries(to: app).flatMap(\.fixes)
        // The first fix, then the first one at least 10 m further: every tenth (10.5 m on).
        #expect(delivered.count == 10)
        #expect(d.failures(of: app).isEmpty)
    }

    @Test func noDistanceFilterDeliversEveryFix() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest(distanceFilter: -1))))
        for i in 0..<50 {
            d.send(.source(gnss.id, .fix(fix(10, 10, at: Double(i)))))
            d.advance(by: 1)
        }
        #expect(d.deliveries(to: app).count == 50)
    }

    @Test func freshCachedFixIsDeliveredFirstAndStaleOneIsNot() {
        var d = driver()
        let other = ClientID(2)
        d.send(.client(other, .register(label: "other", authorization: whenInUse)))
        d.send(.client(other, .startUpdates(UpdateRequest())))
        d.send(.source(gnss.id, .fix(fix(1, 2))))
        d.send(.client(other, .stopUpdates))
        d.advance(by: 30)
        d.send(.client(app, .startUpdates(UpdateRequest())))
        #expect(d.deliveries(to: app).map { $0.fixes.map(\.longitude) } == [[2]])

        let third = ClientID(3)
        d.advance(by: 61)
        d.send(.client(third, .register(label: "third", authorization: whenInUse)))
        d.send(.client(third, .startUpdates(UpdateRequest())))
        #expect(d.deliveries(to: third).isEmpty)
    }

    @Test func silenceReportsLocationUnknownOnceAndKeepsTrying() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.advance(by: 14.9)
        #expect(d.failures(of: app).isEmpty)
        d.advance(by: 0.2)
        #expect(d.failures(of: app) == [.locationUnknown])
        d.advance(by: 600)
        #expect(d.failures(of: app) == [.locationUnknown])
        #expect(d.poweredSources == [gnss.id])
        d.send(.source(gnss.id, .fix(fix(3, 4))))
        #expect(d.deliveries(to: app).count == 1)
        // Silence again after fixes: one more report, 15 s after the last fix.
        d.advance(by: 16)
        #expect(d.failures(of: app) == [.locationUnknown, .locationUnknown])
    }

    @Test func stopPowersEverythingDownAndAccountsOnTime() {
        var d = driver()
        d.advance(to: 100)
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.advance(to: 400)
        d.send(.client(app, .stopUpdates))
        d.advance(to: 1000)
        let status = d.engine.status(at: d.now)
        #expect(d.poweredSources.isEmpty)
        #expect(status.sources.first?.onTime == 300)
    }

    @Test func hoursOfMovementRunInstantly() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest(distanceFilter: 100))))
        // Three hours at 1 Hz, 10.5 m/s eastwards along the equator: every tenth fix passes.
        for second in 0..<(3 * 3600) {
            let (lat, lon) = east(of: 0, 0, metres: Double(second) * 10.5)
            d.send(.source(gnss.id, .fix(fix(lat, lon, at: Double(second)))))
            d.advance(by: 1)
        }
        #expect(d.deliveries(to: app).count == 1080)
        #expect(d.failures(of: app).isEmpty)
    }

    @Test func inputsAndActionsAreCodable() throws {
        let inputs: [EngineInput] = [
            .client(app, .startUpdates(UpdateRequest(desiredAccuracy: 10, distanceFilter: 5, activityType: 2))),
            .client(app, .register(label: "a", authorization: reducedWhenInUse)),
            .source(gnss.id, .fix(fix(1, 2))),
            .source(gnss.id, .unavailable(reason: "unplugged")),
            .tick,
        ]
        let data = try JSONEncoder().encode(inputs)
        #expect(try JSONDecoder().decode([EngineInput].self, from: data) == inputs)
        let actions: [EngineAction] = [
            .deliver(app, Delivery(fixes: [fix(1, 2)], isStationary: true, accuracyLimited: false, isRequestedLocation: true)),
            .fail(app, .locationUnknown), .powerOn(gnss.id), .powerOff(gnss.id),
        ]
        #expect(try JSONDecoder().decode([EngineAction].self, from: try JSONEncoder().encode(actions)) == actions)
    }
}

@Suite struct BadRequestValueTests {
    /// Apple: a negative (or here NaN) distance filter means every fix; NaN accuracy means best.
    @Test(arguments: [Double.nan, -1, -100, 0])
    func distanceFilterWithoutMeaningDeliversEveryFix(filter: Double) {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: .nan, distanceFilter: filter))))
        #expect(d.poweredSources == [gnss.id])
        for i in 0..<20 {
            d.send(.source(gnss.id, .fix(fix(10, 10, at: Double(i)))))
            d.advance(by: 1)
        }
        #expect(d.deliveries(to: app).count == 20)
    }

    @Test func invalidFixesAreNeverDelivered() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.send(.source(gnss.id, .fix(fix(.nan, 0))))
        d.send(.source(gnss.id, .fix(fix(91, 0))))
        d.send(.source(gnss.id, .fix(fix(0, 181))))
        d.send(.source(gnss.id, .fix(fix(1, 1, accuracy: -1))))
        #expect(d.deliveries(to: app).isEmpty)
        #expect(d.engine.latestFix == nil)
    }
}

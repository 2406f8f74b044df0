import Foundation
import CoreLocationEngine
import Testing

@Suite struct RequestLocationTests {
    @Test func firstFixMeetingTheAccuracyIsTheOnlyAnswer() {
        var d = driver()
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: 50))))
        #expect(d.poweredSources == [gnss.id])
        d.send(.source(gnss.id, .fix(fix(1, 1, accuracy: 200))))
        d.advance(by: 1)
        d.send(.source(gnss.id, .fix(fix(2, 2, accuracy: 40))))
        d.send(.source(gnss.id, .fix(fix(3, 3, accuracy: 4))))
        d.advance(by: 60)
        let answers = d.deliveries(to: app)
        #expect(answers.map { $0.fixes.map(\.latitude) } == [[2]])
        #expect(answers.allSatisfy { $0.isRequestedLocation })
        #expect(d.failures(of: app).isEmpty)
        #expect(d.poweredSources.isEmpty)
    }

    @Test func bestSeenIsDeliveredWhenTheBudgetRunsOut() {
        var d = driver()
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: 10))))
        d.send(.source(gnss.id, .fix(fix(1, 1, accuracy: 300))))
        d.send(.source(gnss.id, .fix(fix(2, 2, accuracy: 80))))
        d.send(.source(gnss.id, .fix(fix(3, 3, accuracy: 120))))
        d.advance(by: 9.99)
        #expect(d.deliveries(to: app).isEmpty)
        d.advance(by: 0.02)
        #expect(d.deliveries(to: app).map { $0.fixes.map(\.latitude) } == [[2]])
        d.advance(by: 100)
        #expect(d.deliveries(to: app).count == 1)
        #expect(d.failures(of: app).isEmpty)
    }

    @Test func noFixGivesExactlyOneLocationUnknownAtTheBudget() {
        var d = driver()
        d.send(.client(app, .requestLocation(UpdateRequest())))
        d.advance(by: 9.9)
        #expect(d.failures(of: app).isEmpty)
        d.advance(by: 1000)
        #expect(d.failures(of: app) == [.locationUnknown])
        #expect(d.deliveries(to: app).isEmpty)
        #expect(d.poweredSources.isEmpty)
    }

    @Test func bestAccuracyMeansAsGoodAsTheBestSourcePromises() {
        var d = driver([gnss, coarse])
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: -1))))
        #expect(d.poweredSources == [gnss.id])
        d.send(.source(gnss.id, .fix(fix(1, 1, accuracy: 6))))
        #expect(d.deliveries(to: app).isEmpty)
        d.send(.source(gnss.id, .fix(fix(2, 2, accuracy: 5))))
        #expect(d.deliveries(to: app).map { $0.fixes.map(\.latitude) } == [[2]])
    }

    @Test func freshCachedFixAnswersAtOnce() {
        var d = driver()
        let other = ClientID(9)
        d.send(.client(other, .register(label: "o", authorization: whenInUse)))
        d.send(.client(other, .startUpdates(UpdateRequest())))
        d.send(.source(gnss.id, .fix(fix(7, 7, accuracy: 5))))
        d.advance(by: 5)
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: 100))))
        #expect(d.deliveries(to: app).map { $0.fixes.map(\.latitude) } == [[7]])
    }

    @Test func deniedRequestFailsOnce() {
        var d = driver(authorization: ClientAuthorization(level: .restricted))
        d.send(.client(app, .requestLocation(UpdateRequest())))
        d.advance(by: 100)
        #expect(d.failures(of: app) == [.denied])
        #expect(d.poweredSources.isEmpty)
    }
}

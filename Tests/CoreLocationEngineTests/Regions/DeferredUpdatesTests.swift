import Foundation
import Testing

@testable import CoreLocationEngine

@Suite struct DeferredUpdatesTests {
    func finishes(_ d: EngineDriver) -> [DeferralError?] {
        d.actions.compactMap {
            if case .deferredFinished(_, let error) = $0.action { return .some(error) }
            return nil
        }
    }

    @Test func preconditionsGiveApplesErrors() {
        var d = driver()
        d.send(.client(app, .allowDeferredUpdates(distance: 100, timeout: 60)))
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 100))))
        d.send(.client(app, .allowDeferredUpdates(distance: 100, timeout: 60)))
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: -1, distanceFilter: 10))))
        d.send(.client(app, .allowDeferredUpdates(distance: 100, timeout: 60)))
        #expect(finishes(d) == [.notUpdatingLocation, .accuracyTooLow, .distanceFiltered])
    }

    /// Walking east at 2 m/s, one fix a second: a 100 m deferral holds 51 fixes (0…100 m) and
    /// delivers them in one batch, then finishes without error.
    @Test func theBatchArrivesInOneDeliveryAfterTheDistance() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.send(.client(app, .allowDeferredUpdates(distance: 100, timeout: .greatestFiniteMagnitude)))
        for second in 0..<60 {
            d.advance(to: Double(second))
            let p = point(from: 45, 6, azimuth: 90, metres: 2 * Double(second))
            d.feed(p.0, p.1)
        }
        let batches = d.deliveries(to: app).map(\.fixes.count)
        #expect(batches.first == 51)
        #expect(batches.dropFirst().allSatisfy { $0 == 1 }, "after the deferral, fixes flow one by one")
        #expect(finishes(d) == [nil])
    }

    @Test func theTimeoutEndsTheDeferralEvenWithoutAFix() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.feed(45, 6)
        d.send(.client(app, .allowDeferredUpdates(distance: 10_000, timeout: 30)))
        for _ in 0..<10 {
            d.advance(by: 1)
            d.feed(45, 6)
        }
        d.advance(by: 25)
        #expect(d.deliveries(to: app).map(\.fixes.count) == [1, 10])
        #expect(finishes(d) == [nil])
    }

    @Test func disallowingCancelsAndDeliversWhatWasHeld() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest())))
        d.send(.client(app, .allowDeferredUpdates(distance: 10_000, timeout: 600)))
        d.feed(45, 6)
        d.advance(by: 1)
        d.feed(45, 6)
        d.send(.client(app, .disallowDeferredUpdates))
        #expect(d.deliveries(to: app).map(\.fixes.count) == [2])
        #expect(finishes(d) == [.canceled])
        #expect(d.engine.nextDeadline == 16, "only the location-unknown timer remains")
    }
}

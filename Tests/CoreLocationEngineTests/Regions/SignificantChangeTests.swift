import Foundation
import CoreLocationGeodesy
import Testing

@testable import CoreLocationEngine

@Suite struct SignificantChangeTests {
    /// A walk east at 2 m/s for an hour, one fix a second: updates must be ≥ 500 m and ≥ 300 s
    /// apart, and since 300 s at 2 m/s is 600 m, the interval is what binds.
    @Test func updatesComeEvery500MetresButNotMoreOftenThanFiveMinutes() {
        let wifi = SourceDescriptor(
            id: SourceID("wifi"), kind: "simulated", expectedAccuracy: 100, powerCost: 20, isSimulated: true)
        var d = driver([coarse, wifi, gnss])
        d.send(.client(app, .startSignificantChanges))
        #expect(d.poweredSources == [wifi.id], "the cheapest source whose accuracy can tell 500 m")
        for second in 0...3600 {
            d.advance(to: Double(second))
            let p = point(from: 45, 6, azimuth: 90, metres: 2 * Double(second))
            d.send(.source(wifi.id, .fix(fix(p.0, p.1, accuracy: 50, at: Double(second)))))
        }
        let times = d.actions.compactMap { if case .deliver = $0.action { $0.time } else { nil } }
        #expect(times == stride(from: 0.0, through: 3600, by: 300).map { $0 })
    }

    @Test func aParkedDeviceGetsOnlyTheFirstUpdate() {
        var d = driver()
        d.send(.client(app, .startSignificantChanges))
        for second in 0...3600 {
            d.advance(to: Double(second))
            d.feed(45, 6)
        }
        #expect(d.deliveries(to: app).count == 1)
    }

    @Test func theFirstUpdateMayBeTheCachedFixAndDistanceFilterIsIgnored() {
        var d = driver()
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 3000, distanceFilter: 10_000))))
        d.feed(45, 6)
        d.send(.client(app, .stopUpdates))
        d.advance(by: 3000)
        d.clearRecording()
        d.send(.client(app, .startSignificantChanges))
        #expect(d.deliveries(to: app).map(\.fixes.first?.latitude) == [45])
    }

    @Test func aDeniedAppHearsDenied() {
        var d = driver(authorization: ClientAuthorization(level: .denied))
        d.send(.client(app, .startSignificantChanges))
        #expect(d.failures(of: app) == [.denied])
        #expect(d.poweredSources.isEmpty)
    }
}

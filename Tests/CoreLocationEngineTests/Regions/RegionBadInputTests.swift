import Foundation
import Testing

@testable import CoreLocationEngine

@Suite struct RegionBadInputTests {
    static let cases: [(MonitoredRegion, RegionFailure)] = [
        (MonitoredRegion(identifier: "", latitude: 45, longitude: 6, radius: 100), .emptyIdentifier),
        (MonitoredRegion(identifier: "nan", latitude: .nan, longitude: 6, radius: 100), .invalidCenter),
        (MonitoredRegion(identifier: "inf", latitude: 45, longitude: .infinity, radius: 100), .invalidCenter),
        (MonitoredRegion(identifier: "lat", latitude: 90.5, longitude: 6, radius: 100), .invalidCenter),
        (MonitoredRegion(identifier: "lon", latitude: 45, longitude: 181, radius: 100), .invalidCenter),
        (MonitoredRegion(identifier: "zero", latitude: 45, longitude: 6, radius: 0), .invalidRadius),
        (MonitoredRegion(identifier: "negative", latitude: 45, longitude: 6, radius: -5), .invalidRadius),
        (MonitoredRegion(identifier: "nanRadius", latitude: 45, longitude: 6, radius: .nan), .invalidRadius),
        (MonitoredRegion(identifier: "huge", latitude: 45, longitude: 6, radius: 1_000_001), .radiusTooLarge),
    ]

    @Test(arguments: 0..<cases.count)
    func badRegionIsRefusedAndNothingElseIsDisturbed(_ index: Int) {
        let (region, failure) = Self.cases[index]
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        d.feed(home.latitude, home.longitude)
        d.clearRecording()
        d.send(.client(app, .startMonitoring(region)))
        #expect(d.trace(app) == ["fail:\(region.identifier):\(failure.rawValue)"])
        #expect(d.engine.monitoredRegions == [StoredRegion(region: home, state: .inside)])
        #expect(!d.actions.contains { if case .storeRegion = $0.action { true } else { false } })
    }

    @Test func theLargestRadiusIsAccepted() {
        var d = driver()
        d.send(
            .client(
                app, .startMonitoring(MonitoredRegion(identifier: "big", latitude: 0, longitude: 0, radius: 1_000_000)))
        )
        #expect(d.trace(app) == ["start:big"])
    }

    @Test func aRepeatedIdentifierReplacesTheRegion() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        var moved = home
        moved.latitude = 46
        moved.radius = 300
        d.send(.client(app, .startMonitoring(moved)))
        #expect(d.engine.monitoredRegions == [StoredRegion(region: moved, state: .unknown)])
        d.feed(46, 6)
        #expect(d.trace(app) == ["start:home", "start:home", "in:home"])
    }

    @Test func theLimitIsTwentyByDefaultAndReplacingAtTheLimitIsAllowed() {
        var d = driver()
        for i in 0..<20 {
            d.send(
                .client(
                    app,
                    .startMonitoring(
                        MonitoredRegion(identifier: "r\(i)", latitude: 45, longitude: 6 + Double(i) * 0.01, radius: 100)
                    )))
        }
        d.send(
            .client(app, .startMonitoring(MonitoredRegion(identifier: "r20", latitude: 45, longitude: 7, radius: 100))))
        #expect(d.trace(app).last == "fail:r20:tooManyRegions")
        d.send(
            .client(app, .startMonitoring(MonitoredRegion(identifier: "r3", latitude: 44, longitude: 7, radius: 100))))
        #expect(d.trace(app).last == "start:r3")
        #expect(d.engine.monitoredRegions.count == 20)
    }

    @Test func theLimitCanBeRaised() {
        var configuration = LocationEngine.Configuration()
        configuration.regionLimit = 5000
        var d = EngineDriver(engine: LocationEngine(sources: [gnss], configuration: configuration))
        d.send(.client(app, .register(label: "test", authorization: whenInUse)))
        for i in 0..<5000 {
            d.send(
                .client(
                    app,
                    .startMonitoring(
                        MonitoredRegion(
                            identifier: "r\(i)", latitude: 45 + Double(i / 100) * 0.01,
                            longitude: 6 + Double(i % 100) * 0.01, radius: 100))))
        }
        #expect(d.engine.monitoredRegions.count == 5000)
        d.clearRecording()
        // The first fix determines all 5000; the one at region r1234's centre is inside it only.
        d.feed(45 + 12 * 0.01, 6 + 34 * 0.01)
        let inside = d.trace(app).filter { $0.hasPrefix("in:") }
        #expect(inside == ["in:r1234"])
        #expect(d.trace(app).filter { $0.hasPrefix("out:") }.count == 4999)
    }

    @Test func reducedAccuracyAndDeniedAppsAreRefusedWithDenied() {
        var d = driver(authorization: reducedWhenInUse)
        d.send(.client(app, .startMonitoring(home)))
        #expect(d.trace(app) == ["fail:home:denied"])
        var e = driver(authorization: ClientAuthorization(level: .denied))
        e.send(.client(app, .startMonitoring(home)))
        #expect(e.trace(app) == ["fail:home:denied"])
        #expect(e.poweredSources.isEmpty)
    }

    @Test func anUndeterminedAppMayRegisterButNothingIsWatchedUntilAuthorized() {
        var d = driver(authorization: ClientAuthorization(level: .notDetermined))
        d.send(.client(app, .startMonitoring(home)))
        #expect(d.poweredSources.isEmpty)
        d.feed(home.latitude, home.longitude)
        #expect(d.trace(app) == ["start:home"])
        d.send(.client(app, .setAuthorization(whenInUse)))
        #expect(d.poweredSources == [gnss.id])
        d.feed(home.latitude, home.longitude)
        #expect(d.trace(app) == ["start:home", "in:home"])
    }
}

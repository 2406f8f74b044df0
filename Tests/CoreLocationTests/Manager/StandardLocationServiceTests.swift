import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationSources
import Testing
@testable import CoreLocation

@Suite struct StandardLocationServiceTests {
    @Test func defaultsAreApples() throws {
        let h = try ManagerHarness()
        let manager = h.manager(RecordingDelegate())
        #expect(manager.desiredAccuracy == kCLLocationAccuracyBest)
        #expect(manager.distanceFilter == kCLDistanceFilterNone)
        #expect(manager.activityType == .other)
        #expect(manager.pausesLocationUpdatesAutomatically)
        #expect(!manager.allowsBackgroundLocationUpdates)
        #expect(!manager.showsBackgroundLocationIndicator)
        #expect(manager.headingFilter == 1)
        #expect(manager.headingOrientation == .portrait)
        #expect(manager.location == nil)
    }

    @Test func updatesArriveOncePerSecondFromTheFixedSimulation() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.startUpdatingLocation()
        h.advance(by: 9.5)
        #expect(delegate.locations.count == 10)
        #expect(delegate.locations.allSatisfy { $0.coordinate.latitude == 48.8584 && $0.coordinate.longitude == 2.2945 })
        #expect(delegate.locations.allSatisfy { $0.sourceInformation?.isSimulatedBySoftware == true })
        #expect(manager.location?.coordinate.latitude == 48.8584)
        manager.stopUpdatingLocation()
        h.advance(by: 30)
        #expect(delegate.locations.count == 10)
        #expect(h.runtime.status().sources.first?.isPowered == false)
    }

    @Test func requestLocationDeliversExactlyOneLocation() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.requestLocation()
        h.advance(by: 120)
        #expect(delegate.locations.count == 1)
        #expect(delegate.errors.isEmpty)
        #expect(h.runtime.status().sources.first?.onTime == 0)
    }

    @Test func requestLocationWithoutAnySourceFailsOnceWithLocationUnknown() throws {
        let h = try ManagerHarness(scenario: nil, simulatedSources: true)
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.requestLocation()
        h.advance(by: 9.9)
        #expect(delegate.errors.isEmpty)
        h.advance(by: 600)
        #expect(delegate.errors == [.locationUnknown])
    }

    @Test func deniedAppGetsDeniedAndNoLocation() throws {
        let h = try ManagerHarness()
        try h.authorize(.denied)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.requestLocation()
        manager.startUpdatingLocation()
        h.advance(by: 60)
        #expect(delegate.errors == [.denied, .denied])
        #expect(delegate.locations.isEmpty)
        #expect(manager.location == nil)
    }

    @Test func aFreshCachedFixIsDeliveredFirst() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let first = h.manager(RecordingDelegate())
        first.startUpdatingLocation()
        h.advance(by: 0.5)
        let delegate = RecordingDelegate()
        let second = h.manager(delegate)
        second.startUpdatingLocation()
        h.flush()
        #expect(delegate.locations.count == 1)
    }

    @Test func distanceFilterHoldsBackSmallMoves() throws {
        let route = try #require(BuiltInRoute.named("drive"))
        let h = try ManagerHarness(scenario: .route(route))
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.distanceFilter = 250
        manager.startUpdatingLocation()
        h.advance(by: route.duration + 5)
        let delivered = delegate.locations
        #expect(delivered.count >= 5 && delivered.count < route.points.count / 4)
        for (a, b) in zip(delivered, delivered.dropFirst()) {
            #expect(b.distance(from: a) >= 250)
        }
        // The first one is the route's first point.
        #expect(delivered.first?.coordinate.latitude == route.points.first?.latitude)
    }

    @Test func reducedAccuracyNeverLeaksThePreciseCoordinate() throws {
        let h = try ManagerHarness(noise: NoiseModel(seed: 99))
        try h.authorize(.whenInUse, accuracy: .reduced)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        // The simulated device stands still for three hours; left on, automatic pausing would stop
        // the updates after three minutes (VisitsAndPauseTests covers that).
        manager.pausesLocationUpdatesAutomatically = false
        manager.startUpdatingLocation()
        h.advance(by: 3 * 3600)
        let delivered = delegate.locations
        #expect(delivered.count >= 12 && delivered.count <= 13)
        let grid = ReducedAccuracyGrid()
        for location in delivered {
            let cell = try #require(grid.cell(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude))
            #expect(location.coordinate.latitude == cell.centerLatitude && location.coordinate.longitude == cell.centerLongitude)
            #expect(location.horizontalAccuracy >= 3000)
            #expect(location.speed == -1 && location.course == -1 && location.verticalAccuracy == -1)
            #expect(location.coordinate.latitude != 48.8584)
        }
        for (a, b) in zip(delivered, delivered.dropFirst()) {
            #expect(b.timestamp.timeIntervalSince(a.timestamp) >= 900)
        }
        // The precise place is within the stated accuracy.
        let truth = CLLocation(latitude: 48.8584, longitude: 2.2945)
        #expect(delivered.allSatisfy { $0.distance(from: truth) <= $0.horizontalAccuracy })
    }

    @Test func distanceUsesTheEllipsoid() {
        let newYork = CLLocation(latitude: 40.7128, longitude: -74.0060)
        let london = CLLocation(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(newYork.distance(from: london) - 5_585_234) < 1)
    }
}

import Foundation
import Testing
@testable import CoreLocation

@Suite struct UnavailableServicesTests {
    @Test func availabilityMethodsSayNo() {
        #expect(!CLLocationManager.headingAvailable())
        #expect(!CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self))
        #expect(!CLLocationManager.isRangingAvailable())
        #expect(!CLLocationManager.significantLocationChangeMonitoringAvailable())
        #expect(!CLLocationManager.deferredLocationUpdatesAvailable())
    }

    @Test func eachStartCallReportsItsDocumentedError() throws {
        let h = try ManagerHarness()
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 1, longitude: 2), radius: 100, identifier: "home")
        manager.startUpdatingHeading()
        manager.startMonitoring(for: region)
        manager.requestState(for: region)
        manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: UUID()))
        manager.allowDeferredLocationUpdates(untilTraveled: 100, timeout: 60)
        manager.startMonitoringSignificantLocationChanges()
        manager.startMonitoringVisits()
        h.flush()
        #expect(
            Array(delegate.calls.dropFirst(2)) == [
                .error(.headingFailure),
                .monitoringFailed("home", .regionMonitoringFailure),
                .monitoringFailed("home", .regionMonitoringFailure),
                .rangingFailed(.rangingUnavailable),
                .deferredFinished(.deferredFailed),
                .error(.locationUnknown),
                .error(.locationUnknown),
            ]
        )
        #expect(manager.maximumRegionMonitoringDistance == -1)
        #expect(manager.monitoredRegions.isEmpty)
        #expect(manager.heading == nil)
    }

    @Test func locationPushesAreUnsupportedOnLinux() throws {
        let h = try ManagerHarness()
        let manager = h.manager(RecordingDelegate())
        nonisolated(unsafe) var received: (any Error)?
        manager.startMonitoringLocationPushes { _, error in received = error }
        #expect((received as? CLLocationPushServiceError)?.code == .unsupportedPlatform)
    }
}

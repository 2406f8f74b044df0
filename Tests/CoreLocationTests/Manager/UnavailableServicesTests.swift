import Foundation
import Testing
@testable import CoreLocation

@Suite struct UnavailableServicesTests {
    @Test func availabilityMethodsSayNo() {
        #expect(!CLLocationManager.headingAvailable())
        #expect(!CLLocationManager.isRangingAvailable())
    }

    @Test func eachStartCallReportsItsDocumentedError() throws {
        let h = try ManagerHarness()
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.startUpdatingHeading()
        manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: UUID()))
        h.flush()
        #expect(
            Array(delegate.calls.dropFirst(2)) == [
                .error(.headingFailure),
                .rangingFailed(.rangingUnavailable),
            ]
        )
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

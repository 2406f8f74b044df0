import Foundation
import Testing

@testable import CoreLocation

@Suite struct ManagerDeferredUpdatesTests {
    @Test func deferralThroughTheManagerBatchesAndFinishes() throws {
        #expect(CLLocationManager.deferredLocationUpdatesAvailable())
        let h = try MonitoringHarness()
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        manager.allowDeferredLocationUpdates(untilTraveled: CLLocationDistanceMax, timeout: 10)
        manager.startUpdatingLocation()
        h.advance(by: 0.5)
        manager.allowDeferredLocationUpdates(untilTraveled: CLLocationDistanceMax, timeout: 10)
        h.advance(by: 10)
        // The fixed simulation emits one fix a second: the first arrives alone (before the
        // deferral), then ten arrive in one call, then the deferral finishes.
        #expect(delegate.calls.prefix(4) == ["deferred:12", "locations:1", "locations:10", "deferred:nil"])
    }
}

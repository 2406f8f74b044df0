import Foundation
import Testing
@testable import CoreLocation
import CoreLocationRuntime

/// A machine with a Bluetooth adapter (the kernel lists it under /sys/class/bluetooth): there, BlueZ may make
/// beacon ranging and beacon regions available, and the "unavailable" checks below do not apply.
let machineHasBluetoothAdapter =
    (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/bluetooth"))?.isEmpty == false

@Suite struct UnavailableServicesTests {
    @Test(.enabled(if: !machineHasBluetoothAdapter, "a Bluetooth adapter may make ranging available"))
    func availabilityMethodsSayNo() {
        #expect(!CLLocationManager.headingAvailable())
        #expect(!CLLocationManager.isRangingAvailable())
    }

    @Test func eachStartCallReportsItsDocumentedError() throws {
        let h = try ManagerHarness()
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.beacons.use(BeaconRuntime(scanner: nil, scheduler: h.scheduler))
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

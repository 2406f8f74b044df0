import CoreLocationBeacons
import CoreLocationSources
import Foundation
import Synchronization
import Testing
@testable import CoreLocation
import CoreLocationRuntime

/// CLLocationManager's beacon API over a replayed recording on the harness's ManualScheduler.
@Suite struct BeaconRangingManagerTests {
    static let uuid = UUID(uuidString: "83256B74-78D0-43A4-8269-05F9DC8A44BA")!

    final class BeaconDelegate: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
        // @unchecked: written and read only on the harness's manual callback target (the test's thread).
        var ranged: [[CLBeacon]] = []
        var regionEvents: [String] = []
        var failures: [CLError.Code] = []

        func locationManager(
            _ manager: CLLocationManager, didRange beacons: [CLBeacon],
            satisfying constraint: CLBeaconIdentityConstraint
        ) { ranged.append(beacons) }
        func locationManager(
            _ manager: CLLocationManager, didFailRangingFor constraint: CLBeaconIdentityConstraint, error: any Error
        ) { failures.append((error as? CLError)?.code ?? .rangingFailure) }
        func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
            regionEvents.append("enter \(region.identifier)")
        }
        func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
            regionEvents.append("exit \(region.identifier)")
        }
        func locationManager(
            _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
        ) {
            regionEvents.append("state \(state.rawValue) \(region.identifier)")
        }
        func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
            regionEvents.append("start \(region.identifier)")
        }
    }

    static func adverts(from start: Double, count: Int, minor: UInt16, rssi: Int) -> [RecordedAdvert] {
        (0..<count).map { index in
            RecordedAdvert(
                t: start + Double(index) * 0.1, address: "5A:00:00:00:00:\(String(format: "%02X", index % 7))",
                rssi: rssi,
                manufacturer: ["004c": "0215" + "83256b7478d043a4826905f9dc8a44ba" + "0001"
                    + String(format: "%04x", minor) + "c5"])
        }
    }

    /// A manager with a recording delegate whose beacons come from `adverts`, replayed on the harness's clock.
    static func manager(_ h: ManagerHarness, replaying adverts: [RecordedAdvert]) -> (CLLocationManager, BeaconDelegate) {
        let delegate = BeaconDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        let beacons = BeaconRuntime(
            scanner: ReplayBeaconScanner(adverts: adverts, scheduler: h.scheduler), scheduler: h.scheduler)
        manager.beacons.use(beacons)
        h.runtime.useBeacons(beacons)
        return (manager, delegate)
    }

    @Test func rangesOnceASecondWithAppleFields() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let (manager, delegate) = Self.manager(h, replaying: Self.adverts(from: 0.05, count: 20, minor: 9, rssi: -65))
        let constraint = CLBeaconIdentityConstraint(uuid: Self.uuid, major: 1)
        manager.startRangingBeacons(satisfying: constraint)
        #expect(manager.rangedBeaconConstraints == [constraint])
        h.advance(by: 4)
        #expect(delegate.ranged.count == 4, "one didRange a second")
        let first = try #require(delegate.ranged.first?.first)
        #expect(first.uuid == Self.uuid && first.major == 1 && first.minor == 9)
        #expect(first.rssi == -65)
        // 10^((−59 + 65) / 20) = 1.995 m → near.
        #expect(abs(first.accuracy - 1.9953) < 0.001)
        #expect(first.proximity == .near)
        #expect(first.timestamp == h.scheduler.wallClock(at: 0.95))
        #expect(delegate.ranged[2].first?.rssi == 0 && delegate.ranged[2].first?.proximity == .unknown,
            "heard 1.05 s before: listed, no reading")
        manager.stopRangingBeacons(satisfying: constraint)
        #expect(manager.rangedBeaconConstraints.isEmpty)
        h.advance(by: 3)
        #expect(delegate.ranged.count == 4, "nothing after stop")
    }

    @Test func beaconRegionEntersAndExits() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let (manager, delegate) = Self.manager(h, replaying: Self.adverts(from: 2, count: 10, minor: 3, rssi: -60))
        let region = CLBeaconRegion(uuid: Self.uuid, major: 1, minor: 3, identifier: "desk")
        manager.startMonitoring(for: region)
        #expect(manager.monitoredRegions.contains(region))
        h.advance(by: 5)
        #expect(delegate.regionEvents == ["start desk", "state 1 desk", "enter desk"])
        h.advance(by: 40)
        #expect(delegate.regionEvents.suffix(2) == ["state 2 desk", "exit desk"])
        manager.requestState(for: region)
        h.flush()
        #expect(delegate.regionEvents.last == "state 2 desk")
        manager.stopMonitoring(for: region)
        #expect(!manager.monitoredRegions.contains(region))
    }

    /// Ranging follows the app's authorization (decision 0030): denied → kCLErrorDenied at once and nothing
    /// ranged; not determined → nothing until the user allows; revoked → nothing from then on.
    @Test func rangingFollowsAuthorization() throws {
        let h = try ManagerHarness()
        let (manager, delegate) = Self.manager(h, replaying: Self.adverts(from: 0.05, count: 200, minor: 9, rssi: -65))
        let constraint = CLBeaconIdentityConstraint(uuid: Self.uuid, major: 1)

        manager.startRangingBeacons(satisfying: constraint)
        h.advance(by: 3)
        #expect(delegate.ranged.isEmpty, "not determined: nothing reaches the delegate")
        #expect(delegate.failures.isEmpty)

        try h.authorize(.whenInUse)
        h.advance(by: 3)
        #expect(delegate.ranged.count == 3, "allowed: one didRange a second")
        #expect(delegate.ranged.last?.first?.minor == 9)

        try h.authorize(.denied)
        h.advance(by: 3)
        #expect(delegate.ranged.count == 3, "revoked: nothing more")
        manager.stopRangingBeacons(satisfying: constraint)
        manager.startRangingBeacons(satisfying: constraint)
        h.advance(by: 1)
        #expect(delegate.failures == [.denied])
        #expect(manager.rangedBeaconConstraints.isEmpty, "a denied request is not kept")

        let region = CLBeaconRegion(uuid: Self.uuid, identifier: "door")
        manager.startMonitoring(for: region)
        h.advance(by: 1)
        #expect(!delegate.regionEvents.contains("start door"))
        #expect(manager.monitoredRegions.isEmpty)
    }

    @Test func noScannerMeansRangingUnavailable() throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        let delegate = BeaconDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        manager.beacons.use(BeaconRuntime(scanner: nil, scheduler: h.scheduler))
        manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: Self.uuid))
        h.flush()
        #expect(delegate.failures == [.rangingUnavailable])
    }
}

import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Testing

@testable import CoreLocation

@Suite struct ManagerRegionMonitoringTests {
    static let eiffel = CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945)

    @Test(.enabled(if: !machineHasBluetoothAdapter, "a Bluetooth adapter may make beacon regions available"))
    func availabilityAndLimitsAreReported() throws {
        #expect(CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self))
        #expect(!CLLocationManager.isMonitoringAvailable(for: CLBeaconRegion.self))
        #expect(CLLocationManager.significantLocationChangeMonitoringAvailable())
        let h = try MonitoringHarness()
        let manager = h.manager(RegionDelegate())
        #expect(manager.maximumRegionMonitoringDistance == 1_000_000)
    }

    @Test func startingInsideDeterminesInsideAndSharesTheRegionWithEveryManager() throws {
        let h = try MonitoringHarness()
        let first = RegionDelegate()
        let second = RegionDelegate()
        let manager = h.manager(first)
        let other = h.manager(second)
        let region = CLCircularRegion(center: Self.eiffel, radius: 200, identifier: "tower")
        region.notifyOnExit = false
        manager.startMonitoring(for: region)
        h.advance(by: 2)
        #expect(first.calls == ["start:tower", "state:tower:inside"])
        #expect(second.calls == ["state:tower:inside"])
        let shared = try #require(other.monitoredRegions.first as? CLCircularRegion)
        #expect(other.monitoredRegions.count == 1)
        #expect(shared.identifier == "tower" && shared.radius == 200 && !shared.notifyOnExit && shared.notifyOnEntry)
        #expect(shared.center.latitude == Self.eiffel.latitude)
        manager.requestState(for: region)
        h.advance(by: 0)
        #expect(first.calls.last == "state:tower:inside")
        other.stopMonitoring(for: region)
        #expect(manager.monitoredRegions.isEmpty)
    }

    @Test func badRegionsGetTheDocumentedErrors() throws {
        let h = try MonitoringHarness()
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 0, identifier: "zero"))
        manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 2_000_000, identifier: "huge"))
        manager.startMonitoring(
            for: CLCircularRegion(center: kCLLocationCoordinate2DInvalid, radius: 100, identifier: "nowhere"))
        manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 100, identifier: ""))
        manager.startMonitoring(for: CLBeaconRegion(uuid: UUID(), identifier: "beacon"))
        h.advance(by: 0)
        #expect(delegate.calls == ["fail:zero:5", "fail:huge:5", "fail:nowhere:5", "fail::5", "fail:beacon:5"])
        #expect(manager.monitoredRegions.isEmpty)
    }

    @Test func reducedAccuracyIsRegionMonitoringDenied() throws {
        let h = try MonitoringHarness(accuracy: .reduced)
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 100, identifier: "tower"))
        h.advance(by: 0)
        #expect(delegate.calls == ["fail:tower:4"])
    }

    @Test func regionsAndTheirStateSurviveARestartAndTheExitIsReported() throws {
        let database = try ScratchDirectory("monitoring-tests")
        do {
            let h = try MonitoringHarness(database: database)
            let delegate = RegionDelegate()
            let manager = h.manager(delegate)
            manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 300, identifier: "tower"))
            h.advance(by: 2)
            #expect(delegate.calls == ["start:tower", "state:tower:inside"])
        }
        // The "next launch" of the app finds itself 2 km away.
        let away = Geodesic.wgs84.direct(
            latitude1: Self.eiffel.latitude, longitude1: Self.eiffel.longitude, azimuth1: 45, distance: 2000)
        let h = try MonitoringHarness(
            database: database, scenario: .fixed(latitude: away.latitude, longitude: away.longitude))
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        #expect(manager.monitoredRegions.map(\.identifier) == ["tower"])
        // Clear evidence (2 km out) needs 30 s under decision 0019's rule (20 s before).
        h.advance(by: 40)
        #expect(delegate.calls == ["exit:tower", "state:tower:outside"])
        let stored = try RegionStore(path: database.databasePath).regions(appID: MonitoringHarness.identity.id)
        #expect(stored.map(\.state) == [.outside])
    }

    @Test func aCorruptedDatabaseIsMovedAsideAndMonitoringStillWorks() throws {
        let database = try ScratchDirectory("monitoring-tests")
        try Data("this is not SQLite, it is someone's notes".utf8).write(to: URL(fileURLWithPath: database.databasePath))
        let h = try MonitoringHarness(database: database)
        let manager = h.manager(RegionDelegate())
        manager.startMonitoring(for: CLCircularRegion(center: Self.eiffel, radius: 300, identifier: "tower"))
        let siblings = try FileManager.default.contentsOfDirectory(atPath: database.url.path)
        #expect(siblings.contains { $0.hasPrefix("corelocation.sqlite.corrupt-") })
        #expect(try RegionStore(path: database.databasePath).regions(appID: MonitoringHarness.identity.id).count == 1)
    }

    @Test func theRaisedLimitIsHonouredThroughTheManager() throws {
        var configuration = LocationEngine.Configuration()
        configuration.regionLimit = 3
        let h = try MonitoringHarness(configuration: configuration)
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        for i in 0..<4 {
            manager.startMonitoring(
                for: CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: 10, longitude: Double(i)), radius: 100, identifier: "r\(i)"
                ))
        }
        h.advance(by: 0)
        #expect(delegate.calls.filter { !$0.hasPrefix("state:") } == ["start:r0", "start:r1", "start:r2", "fail:r3:5"])
    }

    @Test func significantChangesDeliverTheCachedFixFirstThenNothingWhileParked() throws {
        let h = try MonitoringHarness()
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        manager.startMonitoringSignificantLocationChanges()
        h.advance(by: 1200)
        #expect(delegate.calls == ["locations:1"])
        manager.stopMonitoringSignificantLocationChanges()
    }
}

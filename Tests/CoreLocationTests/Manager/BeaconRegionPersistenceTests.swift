import CoreLocationBeacons
import CoreLocationStorage
import Foundation
import Testing
@testable import CoreLocation
import CoreLocationRuntime

/// Beacon regions in the process, without locationd (decision 0052): the app's, heard by every manager,
/// kept in the database with the state the app was last told, and watched again by the next run.
@Suite struct BeaconRegionPersistenceTests {
    typealias BeaconDelegate = BeaconRangingManagerTests.BeaconDelegate
    static let appID = "org.example.tests"

    /// A run of the app over `database`, whose beacons replay `adverts` on the run's clock.
    static func run(over database: LocationDatabase, replaying adverts: [RecordedAdvert]) throws -> ManagerHarness {
        let h = try ManagerHarness(regionStore: RegionStore(database: database))
        try h.authorize(.whenInUse)
        h.runtime.useBeacons(BeaconRuntime(
            scanner: ReplayBeaconScanner(adverts: adverts, scheduler: h.scheduler), scheduler: h.scheduler))
        return h
    }

    static func manager(_ h: ManagerHarness) -> (CLLocationManager, BeaconDelegate) {
        let delegate = BeaconDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        return (manager, delegate)
    }

    static func storedStates(_ database: LocationDatabase) throws -> [Int] {
        try BackgroundStore(database: database).beaconRegions(uid: getuid(), appID: appID).map(\.state)
    }

    @Test func everyManagerHearsTheAppsRegionsAndTheNextRunGoesOnInTheirState() throws {
        let database = try LocationDatabase.inMemory()
        let region = CLBeaconRegion(uuid: BeaconRangingManagerTests.uuid, major: 1, minor: 3, identifier: "desk")

        // First run: one manager starts the region; another, which never asked, hears it too.
        let first = try Self.run(
            over: database, replaying: BeaconRangingManagerTests.adverts(from: 2, count: 10, minor: 3, rssi: -60))
        let (starter, starterHears) = Self.manager(first)
        let (other, otherHears) = Self.manager(first)
        starter.startMonitoring(for: region)
        first.advance(by: 5)
        #expect(starterHears.regionEvents == ["start desk", "state 1 desk", "enter desk"])
        #expect(otherHears.regionEvents == ["state 1 desk", "enter desk"])
        #expect(other.monitoredRegions == [region])
        #expect(try Self.storedStates(database) == [1], "inside, as the app was told")

        // requestState answers the asking manager alone.
        other.requestState(for: region)
        first.flush()
        #expect(otherHears.regionEvents.last == "state 1 desk" && otherHears.regionEvents.count == 3)
        #expect(starterHears.regionEvents.count == 3)

        // The next run: the beacon is still there. The region is watched again inside: no second entry.
        let second = try Self.run(
            over: database, replaying: BeaconRangingManagerTests.adverts(from: 0.5, count: 20, minor: 3, rssi: -60))
        let (manager, hears) = Self.manager(second)
        #expect(manager.monitoredRegions == [region])
        second.advance(by: 5)
        #expect(hears.regionEvents.isEmpty, "already inside: \(hears.regionEvents)")
        second.advance(by: 40)
        #expect(hears.regionEvents == ["state 2 desk", "exit desk"])
        #expect(try Self.storedStates(database) == [2])

        manager.stopMonitoring(for: region)
        #expect(manager.monitoredRegions.isEmpty)
        #expect(try Self.storedStates(database).isEmpty, "forgotten")
    }

    /// A state the app was not told (not authorized) is not stored: the next run reports the entry.
    @Test func aStateTheAppWasNotToldIsNotKept() throws {
        let database = try LocationDatabase.inMemory()
        let region = CLBeaconRegion(uuid: BeaconRangingManagerTests.uuid, major: 1, identifier: "door")
        let first = try Self.run(
            over: database, replaying: BeaconRangingManagerTests.adverts(from: 2, count: 10, minor: 3, rssi: -60))
        let (manager, hears) = Self.manager(first)
        manager.startMonitoring(for: region)
        first.flush()
        try first.authorize(.notDetermined)
        first.advance(by: 5)
        #expect(hears.regionEvents == ["start door"])
        #expect(try Self.storedStates(database) == [0])

        let second = try Self.run(
            over: database, replaying: BeaconRangingManagerTests.adverts(from: 0.5, count: 20, minor: 3, rssi: -60))
        let (secondManager, secondHears) = Self.manager(second)
        second.advance(by: 2)
        #expect(secondHears.regionEvents == ["state 1 door", "enter door"])
        #expect(secondManager.monitoredRegions == [region])
    }
}

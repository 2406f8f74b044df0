import Foundation
import CoreLocationBeacons
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Testing

@testable import CoreLocation
import CoreLocationRuntime

@Suite struct CLMonitorTests {
    static let eiffel = CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945)
    static let away: CLLocationCoordinate2D = {
        let p = Geodesic.wgs84.direct(
            latitude1: eiffel.latitude, longitude1: eiffel.longitude, azimuth1: 0, distance: 3000)
        return CLLocationCoordinate2D(latitude: p.latitude, longitude: p.longitude)
    }()

    @Test func aCircleTheDeviceIsInBecomesSatisfiedAndTheRecordIsPersistedByName() async throws {
        let h = try MonitoringHarness()
        let monitor = CLMonitor("fences", runtime: h.runtime)
        await monitor.add(CLMonitor.CircularGeographicCondition(center: Self.eiffel, radius: 200), identifier: "tower")
        await monitor.add(CLMonitor.CircularGeographicCondition(center: Self.away, radius: 200), identifier: "north")
        h.advance(by: 1)
        var iterator = monitor.events.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        let second = try #require(try await iterator.next())
        #expect([first.identifier, second.identifier].sorted() == ["north", "tower"])
        #expect((first.identifier == "tower" ? first : second).state == .satisfied)
        #expect((first.identifier == "north" ? first : second).state == .unsatisfied)
        #expect(await monitor.identifiers == ["north", "tower"])
        #expect(await monitor.record(for: "tower")?.lastEvent.state == .satisfied)
        // CLLocationManager's regions are a separate set.
        #expect(CLLocationManager(runtime: h.runtime, target: h.target).monitoredRegions.isEmpty)

        let rows = try RegionStore(path: h.databasePath).records(
            monitor: "fences", appID: MonitoringHarness.identity.id)
        #expect(rows.map(\.identifier) == ["north", "tower"])
        #expect(rows.map(\.state) == [2, 1])
    }

    @Test func assumingTheRightStateProducesNoEvent() async throws {
        let h = try MonitoringHarness()
        let monitor = CLMonitor("quiet", runtime: h.runtime)
        await monitor.add(
            CLMonitor.CircularGeographicCondition(center: Self.eiffel, radius: 200), identifier: "tower",
            assuming: .satisfied)
        await monitor.add(
            CLMonitor.CircularGeographicCondition(center: Self.away, radius: 200), identifier: "north",
            assuming: .satisfied)
        h.advance(by: 5)
        var iterator = monitor.events.makeAsyncIterator()
        let only = try #require(try await iterator.next())
        #expect(only.identifier == "north" && only.state == .unsatisfied)
        #expect(await monitor.record(for: "tower")?.lastEvent.state == .satisfied)
    }

    /// Without a beacon scanner (`CORELOCATION_BEACONS=off`, no system bus) a beacon condition cannot be watched.
    @Test func beaconConditionsWithoutAScannerAreUnsupportedAndRemovingForgets() async throws {
        let h = try MonitoringHarness()
        let monitor = CLMonitor(
            "beacons", runtime: h.runtime, beacons: BeaconRuntime(scanner: nil, scheduler: h.scheduler))
        await monitor.add(CLMonitor.BeaconIdentityCondition(uuid: UUID()), identifier: "b")
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.conditionUnsupported && event.state == .unmonitored)
        await monitor.remove("b")
        #expect(await monitor.identifiers.isEmpty)
        #expect(
            try RegionStore(path: h.databasePath).records(monitor: "beacons", appID: MonitoringHarness.identity.id)
                .isEmpty)
    }

    /// A beacon condition on a replayed recording: satisfied at the first matching advert, unsatisfied 30 s
    /// after the last; another UUID's adverts change nothing; the record persists and comes back watched.
    @Test func aBeaconConditionIsSatisfiedByItsBeaconAndUnsatisfiedAfterTheSilence() async throws {
        let database = try ScratchDirectory("monitoring-tests")
        let uuid = "83256b7478d043a4826905f9dc8a44ba"
        func adverts(_ times: [Double], uuid: String) -> [RecordedAdvert] {
            times.map {
                RecordedAdvert(
                    t: $0, address: "5A:00:00:00:00:01", rssi: -60,
                    manufacturer: ["004c": "0215" + uuid + "0001" + "0002" + "c5"])
            }
        }
        let h = try MonitoringHarness(database: database)
        // Another UUID at 1–5 s; ours at 10–12 s, then silence.
        let recording = adverts([1, 3, 5], uuid: "00000000000000000000000000000001")
            + adverts([10, 11, 12], uuid: uuid)
        let beacons = BeaconRuntime(
            scanner: ReplayBeaconScanner(adverts: recording, scheduler: h.scheduler), scheduler: h.scheduler)
        let monitor = CLMonitor("beacons", runtime: h.runtime, beacons: beacons)
        let condition = CLMonitor.BeaconIdentityCondition(
            uuid: try #require(UUID(uuidString: "83256B74-78D0-43A4-8269-05F9DC8A44BA")), major: 1)
        await monitor.add(condition, identifier: "door", assuming: .unsatisfied)
        h.advance(by: 8)
        #expect(await monitor.record(for: "door")?.lastEvent.state == .unsatisfied, "another UUID is not ours")
        h.advance(by: 3)  // t = 11: our first advert came at 10
        var iterator = monitor.events.makeAsyncIterator()
        let entered = try #require(try await iterator.next())
        #expect(entered.identifier == "door" && entered.state == .satisfied && !entered.conditionUnsupported)
        h.advance(by: 25)  // t = 36: 24 s after the last advert
        #expect(await monitor.record(for: "door")?.lastEvent.state == .satisfied)
        h.advance(by: 10)  // t = 46: 34 s after
        let exited = try #require(try await iterator.next())
        #expect(exited.state == .unsatisfied)
        let rows = try RegionStore(path: database.databasePath)
            .records(monitor: "beacons", appID: MonitoringHarness.identity.id)
        #expect(rows.map(\.identifier) == ["door"])

        // A new monitor of the same name watches the stored condition again.
        let again = CLMonitor("beacons", runtime: h.runtime, beacons: beacons)
        let restored = try #require(await again.record(for: "door"))
        #expect(restored.condition is CLMonitor.BeaconIdentityCondition)
        #expect(!restored.lastEvent.conditionUnsupported && restored.lastEvent.state == .unsatisfied)
    }

    @Test func recordsComeBackInANewMonitorOfTheSameNameAfterARestart() async throws {
        let database = try ScratchDirectory("monitoring-tests")
        do {
            let h = try MonitoringHarness(database: database)
            let monitor = CLMonitor("fences", runtime: h.runtime)
            await monitor.add(
                CLMonitor.CircularGeographicCondition(center: Self.eiffel, radius: 300), identifier: "tower")
            h.advance(by: 1)
            #expect(await monitor.record(for: "tower")?.lastEvent.state == .satisfied)
        }
        // Relaunched 3 km away: the restored record was satisfied, so leaving is an event.
        let h = try MonitoringHarness(
            database: database, scenario: .fixed(latitude: Self.away.latitude, longitude: Self.away.longitude))
        let monitor = CLMonitor("fences", runtime: h.runtime)
        #expect(await monitor.identifiers == ["tower"])
        #expect(await monitor.record(for: "tower")?.lastEvent.state == .satisfied)
        // Clear evidence (3 km out) needs 30 s under decision 0019's rule (20 s before).
        h.advance(by: 40)
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.identifier == "tower" && event.state == .unsatisfied)
        #expect(await CLMonitor("other", runtime: h.runtime).identifiers.isEmpty)
    }

    @Test func reducedAccuracyIsReportedAsAccuracyLimited() async throws {
        let h = try MonitoringHarness(accuracy: .reduced)
        let monitor = CLMonitor("fences", runtime: h.runtime)
        await monitor.add(CLMonitor.CircularGeographicCondition(center: Self.eiffel, radius: 300), identifier: "tower")
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.accuracyLimited && event.state == .unmonitored)
    }
}

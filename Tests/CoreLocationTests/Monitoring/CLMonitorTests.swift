import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Testing

@testable import CoreLocation

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

    @Test func beaconConditionsAreUnsupportedAndRemovingForgets() async throws {
        let h = try MonitoringHarness()
        let monitor = CLMonitor("beacons", runtime: h.runtime)
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

    @Test func recordsComeBackInANewMonitorOfTheSameNameAfterARestart() async throws {
        let path = MonitoringHarness.temporaryDatabase()
        do {
            let h = try MonitoringHarness(databasePath: path)
            let monitor = CLMonitor("fences", runtime: h.runtime)
            await monitor.add(
                CLMonitor.CircularGeographicCondition(center: Self.eiffel, radius: 300), identifier: "tower")
            h.advance(by: 1)
            #expect(await monitor.record(for: "tower")?.lastEvent.state == .satisfied)
        }
        // Relaunched 3 km away: the restored record was satisfied, so leaving is an event.
        let h = try MonitoringHarness(
            databasePath: path, scenario: .fixed(latitude: Self.away.latitude, longitude: Self.away.longitude))
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

import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocation

/// Issue 15 item 9: CLMonitor events' flags come from real state, and the global Location Services
/// switch (CORELOCATION_SERVICES=off) reads as denied, delivers nothing and powers every source down.
@Suite struct ServicesSwitchAndMonitorFlagsTests {
    static let tower = CLMonitor.CircularGeographicCondition(center: CLMonitorTests.eiffel, radius: 200)
    static let north = CLMonitor.CircularGeographicCondition(center: CLMonitorTests.away, radius: 200)

    @Test func servicesOffReadDeniedDeliverNothingAndPowerNothing() async throws {
        let h = try MonitoringHarness(services: LocationServicesSwitch(isEnabled: false))
        let delegate = RegionDelegate()
        let manager = h.manager(delegate)
        #expect(manager.authorizationStatus == .denied)
        manager.startUpdatingLocation()
        manager.requestWhenInUseAuthorization()
        let monitor = CLMonitor("off", runtime: h.runtime)
        await monitor.add(Self.tower, identifier: "tower")
        h.advance(by: 30)
        #expect(!delegate.calls.contains { $0.hasPrefix("locations") }, "\(delegate.calls)")
        #expect(h.runtime.status().sources.allSatisfy { !$0.isPowered && $0.fixCount == 0 })
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.identifier == "tower" && event.state == .unmonitored)
        #expect(event.authorizationDeniedGlobally)
        #expect(!event.authorizationDenied && !event.accuracyLimited && !event.conditionLimitExceeded)
        // The stored decision is kept: it comes back when the switch is turned on.
        h.runtime.authorization.setServices(LocationServicesSwitch(isEnabled: true))
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
    }

    @Test func turningServicesOffMarksEveryRecordAndPowersDown() async throws {
        let h = try MonitoringHarness()
        let monitor = CLMonitor("switch", runtime: h.runtime)
        await monitor.add(Self.tower, identifier: "tower", assuming: .satisfied)
        h.advance(by: 5)
        #expect(h.runtime.status().sources.contains { $0.isPowered })
        h.runtime.authorization.setServices(LocationServicesSwitch(isEnabled: false))
        h.advance(by: 5)
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.identifier == "tower")
        #expect(event.state == .satisfied, "the last known state, never a made-up one")
        #expect(event.authorizationDeniedGlobally && !event.authorizationDenied)
        #expect(h.runtime.status().sources.allSatisfy { !$0.isPowered })
        #expect(await monitor.record(for: "tower")?.lastEvent.authorizationDeniedGlobally == true)
    }

    @Test func deniedRestrictedAndReducedAccuracyHaveTheirOwnFlag() async throws {
        let cases: [(AuthorizationLevel, AccuracyLevel)] = [
            (.denied, .full), (.restricted, .full), (.whenInUse, .reduced),
        ]
        for (level, accuracy) in cases {
            let h = try MonitoringHarness(level: level, accuracy: accuracy)
            let monitor = CLMonitor("flags", runtime: h.runtime)
            await monitor.add(Self.tower, identifier: "tower")
            h.advance(by: 1)
            var iterator = monitor.events.makeAsyncIterator()
            let event = try #require(try await iterator.next())
            #expect(event.state == .unmonitored, "\(level)")
            #expect(event.authorizationDenied == (level == .denied), "\(level)")
            #expect(event.authorizationRestricted == (level == .restricted), "\(level)")
            #expect(event.accuracyLimited == (accuracy == .reduced), "\(level)")
            #expect(!event.authorizationDeniedGlobally, "\(level)")
        }
    }

    @Test func theConditionLimitIsReported() async throws {
        var configuration = LocationEngine.Configuration()
        configuration.regionLimit = 1
        let h = try MonitoringHarness(configuration: configuration)
        let monitor = CLMonitor("limit", runtime: h.runtime)
        await monitor.add(Self.tower, identifier: "tower", assuming: .satisfied)
        await monitor.add(Self.north, identifier: "north")
        h.advance(by: 1)
        var iterator = monitor.events.makeAsyncIterator()
        let event = try #require(try await iterator.next())
        #expect(event.identifier == "north" && event.state == .unmonitored)
        #expect(event.conditionLimitExceeded && !event.authorizationDenied)
    }

    @Test func persistenceUnavailableWithoutADatabase() async throws {
        let stored = try MonitoringHarness()
        let monitor = CLMonitor("kept", runtime: stored.runtime)
        await monitor.add(Self.north, identifier: "north")
        stored.advance(by: 1)
        var kept = monitor.events.makeAsyncIterator()
        #expect(try #require(try await kept.next()).persistenceUnavailable == false)

        let memory = try MonitoringHarness(persists: false)
        let forgetful = CLMonitor("lost", runtime: memory.runtime)
        await forgetful.add(Self.north, identifier: "north")
        memory.advance(by: 1)
        var lost = forgetful.events.makeAsyncIterator()
        let event = try #require(try await lost.next())
        #expect(event.state == .unsatisfied && event.persistenceUnavailable)
    }

    @Test func theSwitchReadsTheEnvironmentAsAppleSettingsWould() {
        #expect(LocationServicesSwitch(environment: [:]).isEnabled)
        #expect(LocationServicesSwitch(environment: ["CORELOCATION_SERVICES": "on"]).isEnabled)
        for off in ["off", "OFF", "0", "false", "no", " disabled "] {
            #expect(!LocationServicesSwitch(environment: ["CORELOCATION_SERVICES": off]).isEnabled, "\(off)")
        }
        let allowed = ClientAuthorization(level: .always, accuracy: .reduced)
        #expect(LocationServicesSwitch(isEnabled: true).apply(to: allowed) == allowed)
        #expect(LocationServicesSwitch(isEnabled: false).apply(to: allowed).level == .denied)
    }
}

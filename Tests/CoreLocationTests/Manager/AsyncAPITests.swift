import Foundation
import CoreLocationEngine
import Testing
@testable import CoreLocation
import CoreLocationRuntime

@Suite struct AsyncAPITests {
    @Test func liveUpdatesYieldLocationsWithoutARunLoop() async throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        var iterator = CLLocationUpdate.liveUpdates(.fitness, runtime: h.runtime).makeAsyncIterator()
        h.advance(by: 4.5)
        var received: [CLLocationUpdate] = []
        for _ in 0..<5 {
            if let update = try await iterator.next() { received.append(update) }
        }
        #expect(received.count == 5)
        #expect(received.allSatisfy { $0.location?.coordinate.latitude == 48.8584 })
        #expect(received.allSatisfy { !$0.authorizationDenied && !$0.accuracyLimited })
        let client = try #require(h.runtime.status().clients.first)
        #expect(client.updates?.activityType == CLActivityType.fitness.rawValue)
    }

    @Test func liveUpdatesBecomeStationaryAfterHalfAMinuteInPlace() async throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse)
        var iterator = CLLocationUpdate.liveUpdates(runtime: h.runtime).makeAsyncIterator()
        h.advance(by: 40.5)
        var flags: [Bool] = []
        for _ in 0..<41 {
            if let update = try await iterator.next() { flags.append(update.isStationary) }
        }
        #expect(flags.prefix(30).allSatisfy { !$0 })
        #expect(flags.suffix(10).allSatisfy { $0 })
    }

    @Test func liveUpdatesSayWhenAuthorizationIsDenied() async throws {
        let h = try ManagerHarness()
        try h.authorize(.denied)
        var iterator = CLLocationUpdate.liveUpdates(runtime: h.runtime).makeAsyncIterator()
        let update = try await iterator.next()
        #expect(update?.authorizationDenied == true)
        #expect(update?.location == nil)
    }

    @Test func liveUpdatesAskForAuthorizationImplicitly() async throws {
        let h = try ManagerHarness(answers: [.allowWhileUsing(precise: true)])
        var iterator = CLLocationUpdate.liveUpdates(runtime: h.runtime).makeAsyncIterator()
        h.advance(by: 0.5)
        let update = try await iterator.next()
        #expect(update?.location != nil)
        #expect(h.prompter?.questions.count == 1)
    }

    @Test func reducedLiveUpdatesAreMarkedAccuracyLimited() async throws {
        let h = try ManagerHarness()
        try h.authorize(.whenInUse, accuracy: .reduced)
        var iterator = CLLocationUpdate.liveUpdates(runtime: h.runtime).makeAsyncIterator()
        h.advance(by: 2)
        let update = try await iterator.next()
        #expect(update?.accuracyLimited == true)
        #expect((update?.location?.horizontalAccuracy ?? 0) >= 3000)
    }

    @Test func serviceSessionAsksAndReportsDiagnostics() async throws {
        let h = try ManagerHarness(answers: [.dontAllow])
        let session = CLServiceSession(authorization: .whenInUse, purposeKey: nil, runtime: h.runtime)
        var iterator = session.diagnostics.makeAsyncIterator()
        let diagnostic = try await iterator.next()
        #expect(diagnostic?.authorizationDenied == true)
        #expect(diagnostic?.alwaysAuthorizationDenied == false)
        #expect(h.prompter?.questions.count == 1)
        session.invalidate()
        #expect(try await iterator.next() == nil)
    }

    @Test func alwaysSessionReportsAlwaysDeniedWhileOnlyWhenInUse() async throws {
        let h = try ManagerHarness(answers: [])
        try h.authorize(.whenInUse)
        let session = CLServiceSession(authorization: .always, purposeKey: "Precise", runtime: h.runtime)
        var iterator = session.diagnostics.makeAsyncIterator()
        let diagnostic = try await iterator.next()
        #expect(diagnostic?.alwaysAuthorizationDenied == true)
        #expect(diagnostic?.authorizationDenied == false)
        #expect(diagnostic?.fullAccuracyDenied == false)
    }

    @Test func backgroundSessionNeedsASessionUntilDecided() async throws {
        let h = try ManagerHarness()
        let session = CLBackgroundActivitySession(runtime: h.runtime)
        var iterator = session.diagnostics.makeAsyncIterator()
        #expect(try await iterator.next()?.serviceSessionRequired == true)
        session.invalidate()
        #expect(try await iterator.next() == nil)
    }

    // Circular conditions are watched by the engine (Tests/CoreLocationTests/Monitoring/CLMonitorTests).
    @Test func monitorSaysBeaconConditionsAreUnsupported() async throws {
        // A harness runtime (in-memory store), never the shared one: tests must not write to the
        // user's own database.
        let h = try ManagerHarness()
        let monitor = CLMonitor("beacons", runtime: h.runtime)
        await monitor.add(CLMonitor.BeaconIdentityCondition(uuid: UUID()), identifier: "beacon")
        var iterator = monitor.events.makeAsyncIterator()
        let event = try await iterator.next()
        #expect(event?.identifier == "beacon")
        #expect(event?.conditionUnsupported == true)
        #expect(await monitor.identifiers == ["beacon"])
        await monitor.remove("beacon")
    }

    @Test func geocoderAnswersFromTheOfflineGazetteer() async throws {
        let placemarks = try await CLGeocoder().geocodeAddressString("Paris")
        #expect(placemarks.first?.isoCountryCode == "FR")
        #expect(placemarks.first?.timeZone?.identifier == "Europe/Paris")
    }
}

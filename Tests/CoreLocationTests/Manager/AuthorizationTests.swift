import Foundation
import CoreLocationEngine
import CoreLocationStorage
import Testing
@testable import CoreLocation
import CoreLocationRuntime

@Suite struct AuthorizationTests {
    @Test func creatingAManagerAnnouncesTheStatusOnce() throws {
        let h = try ManagerHarness()
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        #expect(manager.authorizationStatus == .notDetermined)
        #expect(delegate.calls == [.authorization(.notDetermined), .legacyAuthorization(.notDetermined)])
    }

    @Test func requestWithoutUsageDescriptionIsIgnoredAndLogged() throws {
        let h = try ManagerHarness(info: ["CFBundleIdentifier": "org.example.tests"], answers: [.allowWhileUsing(precise: true)])
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .notDetermined)
        #expect(h.prompter?.questions.isEmpty == true)
        #expect(h.logMessages.contains { $0.contains("NSLocationWhenInUseUsageDescription") })
        manager.requestAlwaysAuthorization()
        #expect(h.logMessages.contains { $0.contains("NSLocationAlwaysAndWhenInUseUsageDescription") })
        #expect(manager.authorizationStatus == .notDetermined)
    }

    @Test func allowWhileUsingIsStoredAndAnnounced() throws {
        let h = try ManagerHarness(answers: [.allowWhileUsing(precise: true)])
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.requestWhenInUseAuthorization()
        h.flush()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(manager.accuracyAuthorization == .fullAccuracy)
        #expect(delegate.authorizations == [.notDetermined, .authorizedWhenInUse])
        let stored = try h.store.decision(for: "org.example.tests")
        #expect(stored?.level == .whenInUse && stored?.accuracy == .full)
        #expect(h.prompter?.questions == [.whenInUse(app: "Tests", usageDescription: "Shows where you are.", preciseByDefault: true)])
    }

    @Test func allowOnceLastsForThisRunOnly() throws {
        let h = try ManagerHarness(answers: [.allowOnce(precise: false)])
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(manager.accuracyAuthorization == .reducedAccuracy)
        #expect(try h.store.decision(for: "org.example.tests") == nil)
        // No upgrade from Allow Once, as on iOS.
        manager.requestAlwaysAuthorization()
        #expect(h.prompter?.questions.count == 1)
    }

    @Test func dontAllowIsStoredAndUpdatesFailWithDenied() throws {
        let h = try ManagerHarness(answers: [.dontAllow])
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.requestWhenInUseAuthorization()
        manager.startUpdatingLocation()
        h.advance(by: 60)
        #expect(manager.authorizationStatus == .denied)
        #expect(delegate.errors == [.denied])
        #expect(delegate.locations.isEmpty)
        #expect(try h.store.decision(for: "org.example.tests")?.level == .denied)
        // Requests do nothing once decided.
        manager.requestWhenInUseAuthorization()
        #expect(h.prompter?.questions.count == 1)
    }

    @Test func alwaysUpgradeIsOfferedExactlyOnce() throws {
        let h = try ManagerHarness(answers: [.allowWhileUsing(precise: true), .changeToAlways])
        let manager = h.manager(RecordingDelegate())
        manager.requestAlwaysAuthorization()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        manager.requestAlwaysAuthorization()
        #expect(manager.authorizationStatus == .authorizedAlways)
        manager.requestAlwaysAuthorization()
        #expect(h.prompter?.questions.count == 2)
        if case .upgradeToAlways = h.prompter?.questions.last {} else { Issue.record("second question was not the upgrade") }
        #expect(try h.store.decision(for: "org.example.tests")?.level == .always)
    }

    @Test func keepingWhileUsingEndsTheUpgradeChance() throws {
        let h = try ManagerHarness(answers: [.allowWhileUsing(precise: true), .keepWhileUsing])
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        manager.requestAlwaysAuthorization()
        manager.requestAlwaysAuthorization()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(h.prompter?.questions.count == 2)
    }

    @Test func withoutATerminalSimulatedSourcesGetWhenInUseForTheRun() throws {
        let h = try ManagerHarness()
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(try h.store.decision(for: "org.example.tests") == nil)
    }

    @Test func withoutATerminalRealSourcesAreDeniedForTheRun() throws {
        let h = try ManagerHarness(simulatedSources: false)
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .denied)
        #expect(try h.store.decision(for: "org.example.tests") == nil)
    }

    @Test(arguments: [
        (DefaultPolicy.deny, CLAuthorizationStatus.denied),
        (.whenInUse, .authorizedWhenInUse),
        (.always, .authorizedWhenInUse),
        (.prompt, .notDetermined),
    ])
    func configuredDefaultPolicyApplies(policy: DefaultPolicy, expected: CLAuthorizationStatus) throws {
        let h = try ManagerHarness(policy: policy)
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == expected)
    }

    @Test func storedDefaultPolicyAppliesWhenTheEnvironmentSaysNothing() throws {
        let h = try ManagerHarness()
        try h.store.setDefaultPolicy(.deny)
        let manager = h.manager(RecordingDelegate())
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .denied)
    }

    @Test func temporaryFullAccuracyLastsForTheRun() async throws {
        let h = try ManagerHarness(temporary: ["Navigation": "Turn-by-turn needs your exact position."], answers: [.allowOnce(precise: true)])
        try h.authorize(.whenInUse, accuracy: .reduced)
        let manager = h.manager(RecordingDelegate())
        #expect(manager.accuracyAuthorization == .reducedAccuracy)
        try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "Navigation")
        #expect(manager.accuracyAuthorization == .fullAccuracy)
        #expect(try h.store.decision(for: "org.example.tests")?.accuracy == .reduced)
    }

    @Test func temporaryFullAccuracyWithAnUnknownPurposeKeyFails() async throws {
        let h = try ManagerHarness(answers: [])
        try h.authorize(.whenInUse, accuracy: .reduced)
        let manager = h.manager(RecordingDelegate())
        await #expect(throws: CLError(.promptDeclined)) {
            try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "Missing")
        }
        #expect(h.logMessages.contains { $0.contains("NSLocationTemporaryUsageDescriptionDictionary") })
    }

    @Test func temporaryFullAccuracyNeedsAuthorization() async throws {
        let h = try ManagerHarness(answers: [])
        let manager = h.manager(RecordingDelegate())
        await #expect(throws: CLError(.denied)) {
            try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "Navigation")
        }
    }
}

import Foundation
import Testing

/// An app is named by the CFBundleIdentifier of its Info.plist (CORELOCATION_INFO_PLIST), and
/// needs the usage description key to ask, as on Apple's platforms.
@Suite struct AppIdentityTests {
    @Test func aStoredDenialForTheBundleIdentifierApplies() async throws {
        let sandbox = try Sandbox()
        let plist = try sandbox.writeInfoPlist([
            "CFBundleIdentifier": "org.example.probe",
            "NSLocationWhenInUseUsageDescription": "The probe checks authorization.",
        ])
        let deny = try await sandbox.locationctl("authorize", "org.example.probe", "deny")
        #expect(deny.status == 0, "\(deny)")
        let run = try await sandbox.run(
            .probe, ["runloop"], extra: ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_INFO_PLIST": plist]
        )
        // 4: the probe saw kCLErrorDenied after requestLocation().
        #expect(run.status == 4, "\(run)")
        #expect(run.authorizationStatuses == [2], "\(run)")
        let errors = run.probeLines.filter { $0.kind == "error" }
        #expect(errors.map(\.values) == [["kCLErrorDomain", "1"]], "\(run)")
        #expect(errors.first?.flag("mainqueue") == true, "\(run)")
        #expect(!run.probeLines.contains { $0.kind == "location" }, "\(run)")
    }

    @Test func aDecisionForAnotherAppDoesNotApply() async throws {
        let sandbox = try Sandbox()
        let plist = try sandbox.writeInfoPlist([
            "CFBundleIdentifier": "org.example.probe",
            "NSLocationWhenInUseUsageDescription": "The probe checks authorization.",
        ])
        _ = try await sandbox.locationctl("authorize", "org.example.other", "deny")
        let run = try await sandbox.run(
            .probe, ["runloop"], extra: ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_INFO_PLIST": plist]
        )
        #expect(run.status == 0, "\(run)")
        #expect(run.authorizationStatuses == [0, 4], "\(run)")
    }

    @Test func withoutTheUsageDescriptionTheRequestIsIgnored() async throws {
        let sandbox = try Sandbox()
        let plist = try sandbox.writeInfoPlist(["CFBundleIdentifier": "org.example.probe"])
        let run = try await sandbox.run(
            .probe, ["runloop", "2"],
            extra: ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_INFO_PLIST": plist]
        )
        // 5: no progress; the status never left notDetermined.
        #expect(run.status == 5, "\(run)")
        #expect(run.authorizationStatuses == [0], "\(run)")
        #expect(run.stderr.contains("NSLocationWhenInUseUsageDescription"), "\(run)")
        // Nothing was stored for the app: an ignored request decides nothing.
        let list = try await sandbox.locationctl("authorize", "--list")
        #expect(!list.stdout.contains("org.example.probe"), "\(list)")
    }
}

/// CORELOCATION_SERVICES=off in a real process: locationServicesEnabled() is false, the app reads
/// denied although it would be allowed, and a location request gets kCLErrorDenied, no position.
@Suite struct ServicesSwitchProcessTests {
    @Test func servicesOffDeniesARealProcess() async throws {
        let sandbox = try Sandbox()
        let plist = try sandbox.writeInfoPlist([
            "CFBundleIdentifier": "org.example.probe",
            "NSLocationWhenInUseUsageDescription": "The probe checks authorization.",
        ])
        _ = try await sandbox.locationctl("authorize", "org.example.probe", "when-in-use")
        var extra = ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_INFO_PLIST": plist]
        let on = try await sandbox.run(.probe, ["runloop"], extra: extra)
        #expect(on.status == 0 && on.authorizationStatuses == [4], "\(on)")
        extra["CORELOCATION_SERVICES"] = "off"
        let off = try await sandbox.run(.probe, ["runloop"], extra: extra)
        #expect(off.status == 4, "\(off)")
        #expect(off.authorizationStatuses == [2], "\(off)")
        #expect(!off.probeLines.contains { $0.kind == "location" }, "\(off)")
    }
}

import Foundation
import Testing

/// "Delivery on the run loop of the thread that created the manager", checked in a real process
/// for each way a program can wait (see Sources/CoreLocationProbe/main.swift).
@Suite struct ThreadingTests {
    enum Mode: String, CaseIterable, CustomTestStringConvertible {
        case runloop, dispatchmain, asyncmain, thread
        var testDescription: String { rawValue }
    }

    @Test(arguments: Mode.allCases)
    func delegateCallsArriveWhereTheManagerWasCreated(mode: Mode) async throws {
        let sandbox = try Sandbox()
        let plist = try sandbox.writeInfoPlist([
            "CFBundleIdentifier": "org.example.probe",
            "NSLocationWhenInUseUsageDescription": "The probe checks where delegate calls arrive.",
        ])
        let run = try await sandbox.run(
            .probe, [mode.rawValue],
            extra: ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_INFO_PLIST": plist]
        )
        #expect(run.status == 0, "\(run)")

        let created = try #require(run.probeLines.first { $0.kind == "created" }, "\(run)")
        switch mode {
        case .runloop, .dispatchmain:
            #expect(created.flag("main") == true, "\(run)")
        case .asyncmain:
            // Made after an await: on the main actor, i.e. the main queue drained by a worker
            // thread. Were this main=true, the test would not exercise the Linux-specific path.
            #expect(created.flag("main") == false && created.flag("mainqueue") == true, "\(run)")
        case .thread:
            #expect(created.flag("main") == false && created.flag("mainqueue") == false, "\(run)")
        }

        // Apple announces the status at creation (notDetermined), then the when-in-use grant that
        // the built-in policy gives an app whose every source is simulated.
        #expect(run.authorizationStatuses == [0, 4], "\(run)")
        let locations = run.probeLines.filter { $0.kind == "location" }
        #expect(locations.count == 1, "\(run)")
        #expect(locations.first?.values == ["48.858400", "2.294500"], "\(run)")

        let calls = run.delegateCalls
        #expect(calls.count == 3, "\(run)")
        for call in calls {
            switch mode {
            case .runloop:
                #expect(call.flag("main") == true && call.flag("mainqueue") == true, "\(run)")
            case .dispatchmain, .asyncmain:
                #expect(call.flag("mainqueue") == true, "\(run)")
            case .thread:
                #expect(call.flag("same-thread") == true && call.flag("mainqueue") == false, "\(run)")
                // The pthread id too, not only the probe's own comparison. (Not the name: Linux
                // Foundation sometimes loses a name set on a new thread.)
                #expect(call.fields["thread"] == created.fields["thread"], "\(run)")
            }
        }
    }
}

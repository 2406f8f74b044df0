import CoreLocationBeacons
import CoreLocationDBusTestSupport
import CoreLocationSources
import Foundation
import Testing

/// The ranging shell over a replayed recording, timed by a ManualScheduler.
struct BeaconRangingSessionTests {
    static let uuid = UUID(uuidString: "83256B74-78D0-43A4-8269-05F9DC8A44BA")!

    static func advert(_ t: Double, _ address: String, minor: Int, rssi: Int) -> RecordedAdvert {
        let minorHex = String(format: "%04x", minor)
        return RecordedAdvert(
            t: t, address: address, rssi: rssi,
            manufacturer: ["004c": "0215" + "83256b7478d043a4826905f9dc8a44ba" + "0001" + minorHex + "c5"])
    }

    @Test func cyclesEverySecondWithRotatingAddressesMerged() throws {
        let scheduler = ManualScheduler()
        // One beacon whose address rotates every advert, 4 adverts a second for 3 s; then silence.
        var adverts: [RecordedAdvert] = []
        for index in 0..<12 {
            adverts.append(Self.advert(0.1 + Double(index) * 0.25, "02:00:00:00:00:\(String(format: "%02X", index))",
                minor: 5, rssi: index.isMultiple(of: 2) ? -60 : -70))
        }
        let scanner = ReplayBeaconScanner(adverts: adverts, scheduler: scheduler)
        let outputs = Recorder<BeaconRangingSession.Output>()
        let session = BeaconRangingSession(scanner: scanner, scheduler: scheduler) { outputs.append($0) }
        let constraint = BeaconConstraint(uuid: Self.uuid, major: 1)
        session.startRanging(constraint)
        scheduler.advance(by: 10)
        let cycles = outputs.values.compactMap { output -> [RangedBeacon]? in
            if case .action(.ranged(constraint, let beacons)) = output { beacons } else { nil }
        }
        #expect(cycles.count == 10, "one result a second, empty ones included")
        #expect(cycles.prefix(3).map { $0.map(\.rssi) } == [[-65], [-65], [-65]], "one beacon, the mean")
        #expect(cycles[3].map(\.rssi) == [0], "heard 0.85 s before this cycle: listed without a reading")
        #expect(cycles.suffix(2).allSatisfy { $0.isEmpty }, "gone after the retention")
        #expect(outputs.values.first == .availabilityChanged(true))
        session.stopRanging(constraint)
        #expect(scheduler.pendingCount == 0, "nothing left scheduled after the last request")
    }

    @Test func regionEnteredAndExitedOnTheScheduler() throws {
        let scheduler = ManualScheduler()
        let scanner = ReplayBeaconScanner(
            adverts: [Self.advert(0.5, "a", minor: 1, rssi: -60), Self.advert(10.5, "b", minor: 1, rssi: -60)],
            scheduler: scheduler)
        let outputs = Recorder<BeaconRangingSession.Output>()
        let times = Recorder<(String, Double)>()
        let session = BeaconRangingSession(scanner: scanner, scheduler: scheduler) { output in
            outputs.append(output)
            switch output {
            case .action(.entered): times.append(("entered", scheduler.now))
            case .action(.exited): times.append(("exited", scheduler.now))
            default: break
            }
        }
        session.startMonitoring(identifier: "door", constraint: BeaconConstraint(uuid: Self.uuid))
        scheduler.advance(by: 60)
        #expect(times.values.map(\.0) == ["entered", "exited"])
        let entered = times.values.first { $0.0 == "entered" }?.1 ?? -1
        let exited = times.values.first { $0.0 == "exited" }?.1 ?? -1
        #expect(abs(entered - 0.5) < 1e-9, "entry at the first advert")
        #expect(abs(exited - 40.5) < 1e-9, "exit 30 s after the last advert (a 10 s gap never exits)")
        session.requestState(identifier: "door")
        #expect(outputs.values.last == .action(.determined(identifier: "door", .outside)))
    }
}

/// What a session asks of its scanner: every advertisement while it ranges, presence for regions alone
/// (decision 0051), swapped without the scanner ever losing its last subscriber.
struct BeaconSubscriptionKindTests {
    /// Logs `+ranging`/`+regions` at each subscription and `-…` at its end, and the subscriber count after.
    final class KindLog: BeaconScanner {
        let entries = Recorder<String>()
        var isAvailable: Bool { true }
        func checkAvailability(timeout: Duration) -> Bool { true }
        func subscribe(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription {
            subscribe(wantsEveryAdvertisement: true, handler)
        }
        func subscribe(
            wantsEveryAdvertisement: Bool, _ handler: @escaping @Sendable (BeaconScanEvent) -> Void
        ) -> BeaconScanSubscription {
            let kind = wantsEveryAdvertisement ? "ranging" : "regions"
            entries.append("+\(kind)")
            return BeaconScanSubscription { [entries] in entries.append("-\(kind)") }
        }
    }

    @Test func rangingAsksForEveryAdvertisementAndRegionsForPresence() {
        let scanner = KindLog()
        let session = BeaconRangingSession(scanner: scanner, scheduler: ManualScheduler()) { _ in }
        let constraint = BeaconConstraint(uuid: BeaconRangingSessionTests.uuid, major: 1)
        session.startMonitoring(identifier: "door", constraint: constraint)
        #expect(scanner.entries.values == ["+regions"])
        session.startRanging(constraint)
        #expect(scanner.entries.values == ["+regions", "+ranging", "-regions"], "the new one before the old ends")
        session.stopRanging(constraint)
        #expect(scanner.entries.values.suffix(2) == ["+regions", "-ranging"])
        session.stopMonitoring(identifier: "door")
        #expect(scanner.entries.values.last == "-regions")
        #expect(scanner.entries.values.count == 6)
    }
}

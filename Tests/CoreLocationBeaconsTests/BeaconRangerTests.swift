import CoreLocationBeacons
import Foundation
import Testing

/// The ranging state machine, fed by hand with frames and time.
struct BeaconRangerTests {
    static let uuid = UUID(uuidString: "83256B74-78D0-43A4-8269-05F9DC8A44BA")!
    static let other = UUID(uuidString: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")!

    static func frame(_ major: UInt16, _ minor: UInt16, power: Int = -59, uuid: UUID = uuid) -> BeaconFrame {
        BeaconFrame(format: .iBeacon, identity: .uuid(uuid, major: major, minor: minor), measuredPower: power)
    }

    func ranged(_ actions: [BeaconRangerAction]) -> [[RangedBeacon]] {
        actions.compactMap { if case .ranged(_, let beacons) = $0 { beacons } else { nil } }
    }

    @Test func emptyCyclesEverySecond() {
        var ranger = BeaconRanger()
        ranger.startRanging(BeaconConstraint(uuid: Self.uuid), at: 10)
        #expect(ranger.nextDeadline == 11)
        #expect(ranger.tick(at: 10.5).isEmpty)
        #expect(ranged(ranger.tick(at: 11)) == [[]])
        #expect(ranger.nextDeadline == 12)
        #expect(ranged(ranger.tick(at: 12)) == [[]])
        // A late tick gives one result and the next deadline stays on the 1 s grid.
        #expect(ranged(ranger.tick(at: 14.2)) == [[]])
        #expect(ranger.nextDeadline == 15)
    }

    @Test func rssiIsTheCycleMeanAndAccuracyThePathLossDistance() throws {
        var ranger = BeaconRanger()
        ranger.startRanging(BeaconConstraint(uuid: Self.uuid), at: 0)
        for rssi in [-60, -64, -68] { _ = ranger.handle(Self.frame(1, 2, power: -59), rssi: rssi, at: 0.5) }
        let beacons = try #require(ranged(ranger.tick(at: 1)).first)
        #expect(beacons.count == 1)
        let beacon = try #require(beacons.first)
        #expect(beacon.rssi == -64)
        // d = 10^((−59 − (−64)) / 20) = 10^0.25 = 1.778 m → near.
        #expect(abs(beacon.accuracy - 1.7783) < 0.001)
        #expect(beacon.proximity == .near)
        // Next cycle without a reading: still listed (heard 1.5 s ago), rssi 0, accuracy −1, unknown.
        let silent = try #require(ranged(ranger.tick(at: 2)).first?.first)
        #expect(silent.rssi == 0 && silent.accuracy == -1 && silent.proximity == .unknown)
        // Beyond the 5 s retention it leaves the list.
        #expect(ranged(ranger.tick(at: 5)).first?.count == 1, "heard 4.5 s ago")
        #expect(ranged(ranger.tick(at: 6)) == [[]], "heard 5.5 s ago")
    }

    @Test func orderedByProximityThenAccuracy() throws {
        var ranger = BeaconRanger()
        ranger.startRanging(BeaconConstraint(uuid: Self.uuid), at: 0)
        _ = ranger.handle(Self.frame(1, 1), rssi: -80, at: 0.1)  // 11.2 m far
        _ = ranger.handle(Self.frame(1, 2), rssi: -50, at: 0.1)  // 0.35 m immediate
        _ = ranger.handle(Self.frame(1, 3), rssi: -62, at: 0.1)  // 1.41 m near
        _ = ranger.handle(Self.frame(1, 4), rssi: -60, at: 0.1)  // 1.12 m near
        _ = ranger.tick(at: 1)
        _ = ranger.handle(Self.frame(1, 1), rssi: -80, at: 1.1)
        _ = ranger.handle(Self.frame(1, 2), rssi: -50, at: 1.1)
        _ = ranger.handle(Self.frame(1, 4), rssi: -60, at: 1.1)
        _ = ranger.handle(Self.frame(1, 3), rssi: -62, at: 1.1)
        let first = try #require(ranged(ranger.tick(at: 2)).first)
        #expect(first.map(\.minor) == [2, 4, 3, 1])
        #expect(first.map(\.proximity) == [.immediate, .near, .near, .far])
        _ = ranger.handle(Self.frame(1, 1), rssi: -80, at: 2.5)
        let second = try #require(ranged(ranger.tick(at: 3)).first)
        #expect(second.map(\.minor) == [1, 2, 3, 4], "heard: far first; unheard unknowns last, by identity")
        #expect(second.map(\.proximity) == [.far, .unknown, .unknown, .unknown])
    }

    @Test func constraintsMatchUUIDMajorMinor() throws {
        var ranger = BeaconRanger()
        let byUUID = BeaconConstraint(uuid: Self.uuid)
        let byMajor = BeaconConstraint(uuid: Self.uuid, major: 7)
        let byMinor = BeaconConstraint(uuid: Self.uuid, major: 7, minor: 3)
        for constraint in [byUUID, byMajor, byMinor] { ranger.startRanging(constraint, at: 0) }
        _ = ranger.handle(Self.frame(7, 3), rssi: -60, at: 0.2)
        _ = ranger.handle(Self.frame(7, 4), rssi: -60, at: 0.2)
        _ = ranger.handle(Self.frame(8, 3), rssi: -60, at: 0.2)
        _ = ranger.handle(Self.frame(7, 3, uuid: Self.other), rssi: -60, at: 0.2)
        let results = ranger.tick(at: 1)
        var byConstraint: [BeaconConstraint: [String]] = [:]
        for case .ranged(let constraint, let beacons) in results {
            byConstraint[constraint] = beacons.map { "\($0.major).\($0.minor)" }.sorted()
        }
        #expect(byConstraint[byUUID] == ["7.3", "7.4", "8.3"])
        #expect(byConstraint[byMajor] == ["7.3", "7.4"])
        #expect(byConstraint[byMinor] == ["7.3"])
        #expect(results.count == 3)
        #expect(BeaconConstraint(uuid: Self.uuid, major: nil, minor: 3).minor == nil, "no minor without a major")
    }

    @Test func rotatingAddressesAreOneBeacon() throws {
        // The ranger never sees addresses; the session passes frames from any address. Two frames with one
        // identity from "two devices" in one cycle are one beacon with the mean of both.
        var ranger = BeaconRanger()
        ranger.startRanging(BeaconConstraint(uuid: Self.uuid), at: 0)
        _ = ranger.handle(Self.frame(1, 1), rssi: -60, at: 0.2)
        _ = ranger.handle(Self.frame(1, 1), rssi: -70, at: 0.6)
        let beacons = try #require(ranged(ranger.tick(at: 1)).first)
        #expect(beacons.count == 1)
        #expect(beacons.first?.rssi == -65)
    }

    @Test func regionEntryAtFirstAdvertExitAfterThirtySecondsOfSilence() {
        var ranger = BeaconRanger()
        ranger.startMonitoring(identifier: "lobby", constraint: BeaconConstraint(uuid: Self.uuid, major: 1), at: 0)
        #expect(ranger.requestState(identifier: "lobby") == [.determined(identifier: "lobby", .unknown)])
        #expect(ranger.handle(Self.frame(2, 1), rssi: -60, at: 3).isEmpty, "another major")
        #expect(ranger.handle(Self.frame(1, 9), rssi: -60, at: 4)
            == [.determined(identifier: "lobby", .inside), .entered(identifier: "lobby")])
        #expect(ranger.handle(Self.frame(1, 9), rssi: -60, at: 5).isEmpty, "entered once")
        // A 10 s gap never exits.
        #expect(ranger.tick(at: 15).isEmpty)
        #expect(ranger.handle(Self.frame(1, 9), rssi: -60, at: 15).isEmpty)
        #expect(ranger.nextDeadline == 45)
        #expect(ranger.tick(at: 44.9).isEmpty)
        #expect(ranger.tick(at: 45) == [.determined(identifier: "lobby", .outside), .exited(identifier: "lobby")])
        #expect(ranger.requestState(identifier: "lobby") == [.determined(identifier: "lobby", .outside)])
        #expect(ranger.tick(at: 100).isEmpty, "exited once")
        #expect(ranger.requestState(identifier: "nothing") == [])
    }

    @Test func aRegionNeverHeardBecomesOutsideWithoutAnExit() {
        var ranger = BeaconRanger()
        ranger.startMonitoring(identifier: "r", constraint: BeaconConstraint(uuid: Self.uuid), at: 2)
        #expect(ranger.nextDeadline == 32)
        #expect(ranger.tick(at: 32) == [.determined(identifier: "r", .outside)])
        ranger.stopMonitoring(identifier: "r")
        #expect(!ranger.isActive && ranger.nextDeadline == nil)
    }

    @Test func pathLossModel() {
        let model = PathLossModel()
        #expect(model.distance(rssi: -59, measuredPower: -59) == 1)
        #expect(abs((model.distance(rssi: -79, measuredPower: -59) ?? 0) - 10) < 1e-9)
        #expect(model.distance(rssi: 0, measuredPower: -59) == nil)
        #expect(model.distance(rssi: .nan, measuredPower: -59) == nil)
        #expect(PathLossModel.proximity(distance: 0.3) == .immediate)
        #expect(PathLossModel.proximity(distance: 2.9) == .near)
        #expect(PathLossModel.proximity(distance: 3) == .far)
        #expect(PathLossModel.proximity(distance: nil) == .unknown)
    }

    /// A region restored in the state the app was last told (a daemon restart, decision 0050):
    /// inside, the next advert is no entry and silence from the restart is the exit; outside, the
    /// next advert is the entry; neither is reported as determined at the start.
    @Test func regionsStartedInAKeptState() {
        var ranger = BeaconRanger()
        let constraint = BeaconConstraint(uuid: Self.uuid)
        ranger.startMonitoring(identifier: "in", constraint: constraint, at: 100, state: .inside)
        ranger.startMonitoring(identifier: "out", constraint: BeaconConstraint(uuid: Self.other), at: 100, state: .outside)
        #expect(ranger.requestState(identifier: "in") == [.determined(identifier: "in", .inside)])
        #expect(ranger.tick(at: 110).isEmpty)
        #expect(ranger.handle(Self.frame(1, 2), rssi: -60, at: 115) == [])
        // Silence from the last advert (115), not from the restart: the exit at 145.
        #expect(ranger.tick(at: 144.9).isEmpty)
        #expect(ranger.tick(at: 145) == [.determined(identifier: "in", .outside), .exited(identifier: "in")])
        #expect(
            ranger.handle(Self.frame(1, 2, uuid: Self.other), rssi: -60, at: 150)
                == [.determined(identifier: "out", .inside), .entered(identifier: "out")])

        // Inside and never heard again: the exit comes 30 s after the restart.
        var quiet = BeaconRanger()
        quiet.startMonitoring(identifier: "in", constraint: constraint, at: 0, state: .inside)
        #expect(quiet.tick(at: 29.9).isEmpty)
        #expect(quiet.tick(at: 30) == [.determined(identifier: "in", .outside), .exited(identifier: "in")])
    }
}

import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

/// The heading engine alone: inputs in, actions out, time passed in.
struct HeadingStateMachineTests {
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28

    /// A flat, face-up device whose top points at magnetic azimuth `heading`: H = 20 µT, Z = 45 µT.
    static func sample(
        heading: Double, at seconds: Double = 0, accuracy: Double = 3, jitter: Double = 0,
        gravity: DeviceVector? = DeviceVector(x: 0, y: 0, z: 9.8)
    ) -> HeadingSample {
        let psi = heading * .pi / 180
        let field = DeviceVector(x: -20 * sin(psi) + jitter, y: 20 * cos(psi), z: -45)
        return HeadingSample(
            field: field, gravity: gravity, accuracy: accuracy,
            timestamp: t0.addingTimeInterval(seconds))
    }

    static func readings(_ actions: [HeadingStateMachine.Action]) -> [HeadingReading] {
        actions.compactMap { if case .deliver(let reading) = $0 { reading } else { nil } }
    }

    @Test func startAndStopPowerTheSourceOnce() {
        var machine = HeadingStateMachine()
        #expect(machine.handle(.start, at: 0) == [.powerOn])
        #expect(machine.handle(.start, at: 0).isEmpty)
        #expect(machine.handle(.stop, at: 1) == [.powerOff])
        #expect(machine.handle(.sample(Self.sample(heading: 10), HeadingSettings()), at: 2).isEmpty)
    }

    /// Default filter 1°: 10.0 delivered, 10.5 not (moved 0.5°), 11.2 delivered (1.2° from 10.0);
    /// with kCLHeadingFilterNone (−1) every sample is delivered.
    @Test func filterComparesWithTheLastDelivered() {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        var delivered: [Double] = []
        for (i, h) in [10.0, 10.5, 11.2, 11.9, 359.9, 0.5].enumerated() {
            let actions = machine.handle(
                .sample(Self.sample(heading: h, jitter: Double(i) * 1e-6), HeadingSettings()),
                at: Double(i))
            delivered += Self.readings(actions).map(\.magneticHeading)
        }
        #expect(delivered.count == 3)
        #expect(zip(delivered, [10.0, 11.2, 359.9]).allSatisfy { abs($0 - $1) < 1e-4 })  // jitter moves ≤ 3e-5°
        for i in 0..<3 {
            let actions = machine.handle(
                .sample(Self.sample(heading: 0.5, jitter: Double(i + 10) * 1e-6), HeadingSettings(filter: -1)),
                at: 10 + Double(i))
            #expect(Self.readings(actions).count == 1)
        }
    }

    /// The same flat device: portrait and face up refer to the top (+y); upside down to −y (180° away);
    /// landscape left to +x (90° clockwise of the top), landscape right to −x.
    @Test(arguments: [
        (HeadingOrientation.portrait, 0.0), (.faceUp, 0), (.portraitUpsideDown, 180), (.landscapeLeft, 90),
        (.landscapeRight, 270),
    ])
    func orientationRemapsTheReferenceAxis(orientation: HeadingOrientation, offset: Double) throws {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        let reading = try #require(
            Self.readings(
                machine.handle(
                    .sample(Self.sample(heading: 40), HeadingSettings(orientation: orientation)), at: 0)
            ).first)
        #expect(HeadingMath.difference(reading.magneticHeading, 40 + offset) < 1e-9)
    }

    /// Upright in portrait (screen facing the user, top up): the heading is where the back camera
    /// looks. Gravity along +y; field: north horizontal component along −z when facing north.
    @Test func uprightPortraitUsesTheBackOfTheDevice() throws {
        let heading = HeadingMath.magneticHeading(
            field: DeviceVector(x: 0, y: -45, z: -20), gravity: DeviceVector(x: 0, y: 9.8, z: 0), orientation: .portrait
        )
        #expect(HeadingMath.difference(try #require(heading), 0) < 1e-9)
        // Facing east: the right-hand side (+x) points south, the screen (+z) west.
        let east = HeadingMath.magneticHeading(
            field: DeviceVector(x: -20, y: -45, z: 0), gravity: DeviceVector(x: 0, y: 9.8, z: 0), orientation: .portrait
        )
        #expect(HeadingMath.difference(try #require(east), 90) < 1e-9)
    }

    /// True heading = magnetic + WMM2025 declination at the last location on the sample's date; −1
    /// before any location is known.
    @Test func trueHeadingUsesTheDeclination() throws {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        let first = try #require(
            Self.readings(machine.handle(.sample(Self.sample(heading: 100), HeadingSettings()), at: 0)).first)
        #expect(first.trueHeading == -1)
        _ = machine.handle(.location(HeadingLocation(latitude: 64.1, longitude: -21.9)), at: 1)  // Reykjavík
        let second = try #require(
            Self.readings(
                machine.handle(
                    .sample(Self.sample(heading: 110, at: 1), HeadingSettings()), at: 1)
            ).first)
        let year = try #require(MagneticModel.decimalYear(year: 2026, month: 5, day: 28))
        let d = try MagneticModel.wmm2025.field(
            latitude: 64.1, longitude: -21.9, heightKilometers: 0, decimalYear: year
        )
        .declination
        #expect(d < -5)  // about 12° west there: a wrong sign would show
        #expect(abs(second.trueHeading - HeadingMath.normalized(110 + d)) < 1e-9)
    }

    /// A raw reading that does not change for 5 s over ≥ 10 samples is a stuck sensor: one failure,
    /// no headings, until the reading moves again.
    @Test func stuckSensorFailsOnceAndRecovers() {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        var all: [HeadingStateMachine.Action] = []
        for i in 0...60 {
            all += machine.handle(
                .sample(Self.sample(heading: 50, at: Double(i) * 0.1), HeadingSettings(filter: -1)),
                at: Double(i) * 0.1)
        }
        #expect(all.filter { $0 == .fail(.stuck) }.count == 1)
        let afterFailure = all.drop { $0 != .fail(.stuck) }
        #expect(Self.readings(Array(afterFailure)).isEmpty)
        let recovered = machine.handle(.sample(Self.sample(heading: 51, at: 7), HeadingSettings(filter: -1)), at: 7)
        #expect(Self.readings(recovered).count == 1)
    }

    @Test func implausibleOrSaturatedFieldFails() {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        var saturated = Self.sample(heading: 0)
        saturated.isSaturated = true
        #expect(machine.handle(.sample(saturated, HeadingSettings()), at: 0) == [.fail(.implausibleField)])
        let zero = HeadingSample(field: DeviceVector(x: 0, y: 0, z: 0), accuracy: 3, timestamp: Self.t0)
        #expect(machine.handle(.sample(zero, HeadingSettings()), at: 1).isEmpty)  // same episode: reported once
        let nan = HeadingSample(field: DeviceVector(x: .nan, y: 0, z: 0), accuracy: 3, timestamp: Self.t0)
        #expect(machine.handle(.sample(nan, HeadingSettings()), at: 2).isEmpty)
        #expect(
            machine.handle(.sourceUnavailable(reason: "gone"), at: 3) == [.fail(.sourceUnavailable(reason: "gone"))])
        #expect(machine.handle(.sourceUnavailable(reason: "gone"), at: 4).isEmpty)
    }

    /// Poor accuracy (uncalibrated −1, or > 25°) asks once per poor spell; a good reading ends it.
    @Test func calibrationIsRequestedOncePerPoorSpell() {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        let settings = HeadingSettings(filter: -1)
        let a = machine.handle(.sample(Self.sample(heading: 1, accuracy: -1), settings), at: 0)
        #expect(a.first == .requestCalibrationDisplay && Self.readings(a).first?.accuracy == -1)
        #expect(
            machine.handle(.sample(Self.sample(heading: 2, accuracy: 40), settings), at: 1).first
                != .requestCalibrationDisplay)
        _ = machine.handle(.sample(Self.sample(heading: 3, accuracy: 5), settings), at: 2)
        #expect(
            machine.handle(.sample(Self.sample(heading: 4, accuracy: 30), settings), at: 3).first
                == .requestCalibrationDisplay)
        _ = machine.handle(.dismissCalibration, at: 4)
        #expect(
            machine.handle(.sample(Self.sample(heading: 5, accuracy: 30), settings), at: 5).first
                == .requestCalibrationDisplay)
    }

    @Test func decimalYearFromDates() {
        #expect(HeadingMath.decimalYear(Date(timeIntervalSince1970: 1_735_689_600)) == 2025.0)  // 2025-01-01
        #expect(HeadingMath.decimalYear(Date(timeIntervalSince1970: 1_735_689_599)) == 2024 + 365.0 / 366)
        #expect(HeadingMath.decimalYear(Date(timeIntervalSince1970: -86_400)) == 1969 + 364.0 / 365)
    }
}

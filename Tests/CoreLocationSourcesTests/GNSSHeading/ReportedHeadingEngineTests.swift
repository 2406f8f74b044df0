import Foundation
import CoreLocationEngine
import CoreLocationSources
import Testing

/// The heading engine with ready-made headings.
struct ReportedHeadingEngineTests {
    let date = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    func sample(true heading: Double?, magnetic: Double? = nil, at offset: Double = 0) -> HeadingSample {
        GNSSHeading.sample(
            ReportedHeading(trueHeading: heading, magneticHeading: magnetic), accuracy: 0.5,
            at: date.addingTimeInterval(offset))
    }

    func delivered(_ actions: [HeadingStateMachine.Action]) -> [HeadingReading] {
        actions.compactMap {
            if case .deliver(let reading) = $0 { return reading }
            return nil
        }
    }

    @Test func trueHeadingWithoutLocationLeavesMagneticUnknown() throws {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        let actions = machine.handle(.sample(sample(true: 274.07), HeadingSettings(filter: 0)), at: 0)
        let reading = try #require(delivered(actions).first)
        #expect(reading.trueHeading == 274.07)
        #expect(reading.magneticHeading == -1)
        #expect(reading.accuracy == 0.5)
        #expect(actions.count == 1)  // no calibration request
    }

    /// With a location the missing reference comes from the WMM2025 declination there (Munich,
    /// declination ≈ +4.3° E in 2026, so magnetic is about 4° less than true).
    @Test func locationFillsInTheOtherReference() throws {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        let munich = HeadingLocation(latitude: 48.1351, longitude: 11.5820)
        _ = machine.handle(.location(munich), at: 0)
        let declination = try #require(HeadingMath.declination(at: munich, date: date))
        #expect(declination > 3.5 && declination < 5.5)
        let fromTrue = try #require(
            delivered(machine.handle(.sample(sample(true: 2), HeadingSettings(filter: 0)), at: 0)).first)
        #expect(abs(fromTrue.magneticHeading - HeadingMath.normalized(2 - declination)) < 1e-9)
        #expect(fromTrue.magneticHeading > 356)
        let fromMagnetic = try #require(
            delivered(machine.handle(.sample(sample(true: nil, magnetic: 90), HeadingSettings(filter: 0)), at: 1))
                .first)
        #expect(abs(fromMagnetic.trueHeading - (90 + declination)) < 1e-9)
    }

    /// A vehicle standing still repeats one heading: never "stuck", always delivered without a filter;
    /// with a 5° filter only real turns are delivered.
    @Test func repeatedHeadingsAreNotStuckAndFilterApplies() {
        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        var count = 0
        for second in 0..<30 {
            let actions = machine.handle(
                .sample(sample(true: 100, at: Double(second)), HeadingSettings(filter: 0)), at: Double(second))
            #expect(!actions.contains { if case .fail = $0 { true } else { false } })
            count += delivered(actions).count
        }
        #expect(count == 30)
        let filtered = [103.0, 104.9, 105.1, 358.0, 2.0, 4.0].map {
            delivered(machine.handle(.sample(sample(true: $0), HeadingSettings(filter: 5)), at: 40)).count
        }
        #expect(filtered == [0, 0, 1, 1, 0, 1])
    }
}

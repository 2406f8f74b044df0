import CoreLocationEngine
import Foundation
import Testing

/// Decision 0033: floors follow the barometer within seconds of a change, not the weather.
@Suite struct FloorTrackerTests {
    static let venue = FloorVenue(groundFloorAltitude: 100, floorHeight: 3.5)

    /// Five minutes outdoors (GNSS), then 50 minutes indoors without GNSS, up and down
    /// twelve stops including a basement, while the weather drifts 1 hPa/h (8 m: two storeys if it
    /// were mistaken for climbing). The level must be right ≥ 95 % of the samples (truth: the
    /// nearest storey, so half of every staircase counts as the next floor).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func buildingWalk(seed: UInt64) {
        var scenario = AltitudeScenario.staircase(
            seed: seed,
            stops: [
                (0, 300), (1, 120), (3, 200), (2, 90), (5, 300), (4, 60), (0, 200), (6, 400), (1, 300), (-1, 200),
                (2, 600), (0, 100),
            ])
        scenario.outages = [300...scenario.duration + 1]
        let result = AltitudeEvaluation.run(scenario, venue: Self.venue)
        #expect(result.floorSamples > 6000, "anchored at the entrance (300 s) and scored to the end")
        #expect(result.floorAccuracy >= 0.95)
    }

    /// Two hours standing on the second floor while a front passes (pressure falling 2 hPa/h: 33 m of
    /// apparent height): the level never moves.
    @Test func weatherDoesNotChangeTheFloor() {
        var tracker = FloorTracker(venue: Self.venue)
        var levels: Set<Int?> = []
        var t = 0.0
        let floorHeight = 107.0
        while t < 7200 {
            let p0 = 1015 - 2 * t / 3600
            let noise = 0.03 * sin(t * 12.9898) // deterministic jitter
            let pressure = p0 * pow(1 - floorHeight / 44_330.8, 5.255) + noise
            let height = PressureSample.standardAtmosphereHeight(pressure)
            // Anchored from an accurate fused altitude at the start.
            let fused: (altitude: Double, accuracy: Double)? = t == 0 ? (floorHeight, 0.5) : nil
            tracker.observe(barometricHeight: height, fused: fused, gnssRecent: false, at: t)
            levels.insert(tracker.level)
            t += 0.5
        }
        #expect(levels == [2])
    }

    /// A lift: 3.5 m in 3 s. The level changes within 3 s of arriving.
    @Test func liftChangesTheFloorWithinSeconds() throws {
        var tracker = FloorTracker(venue: Self.venue)
        var t = 0.0
        var height = 0.0
        tracker.observe(barometricHeight: height, fused: (100, 0.4), gnssRecent: false, at: t)
        #expect(tracker.level == 0)
        var arrivedAt: Double?
        var changedAt: Double?
        while t < 30 {
            t += 0.5
            if t > 10 && t <= 13 { height += 3.5 / 6 }
            if t >= 13 && arrivedAt == nil { arrivedAt = t }
            tracker.observe(barometricHeight: height, fused: nil, gnssRecent: false, at: t)
            if tracker.level == 1 && changedAt == nil { changedAt = t }
        }
        let arrived = try #require(arrivedAt)
        let changed = try #require(changedAt)
        #expect(changed - arrived <= 3)
        #expect(tracker.level == 1)
    }

    /// Without a venue no fix ever carries a floor, even with a calibrated barometer; with one, fixes
    /// inside its extent do and fixes outside do not.
    @Test func floorOnlyInsideAConfiguredVenue() {
        func run(_ venue: FloorVenue?, latitude: Double) -> Int? {
            var fusion = AltitudeFusion(venue: venue)
            var last: Fix?
            for step in 0..<400 {
                let t = Double(step) * 0.5
                let pressure = PressureSample.standardAtmospherePressure(height: 107)
                fusion.observe(PressureSample(hectopascals: pressure, timestamp: Date(), device: "t"), at: t)
                // GNSS outdoors for 100 s, then indoors.
                let vertical = t < 100 ? 5.0 : -1
                let fix = Fix(latitude: latitude, longitude: 8, altitude: t < 100 ? 100 : 0, horizontalAccuracy: 10,
                              verticalAccuracy: vertical, timestamp: Date())
                last = fusion.fuse(fix, at: t)
            }
            return last?.floor
        }
        #expect(run(nil, latitude: 47) == nil)
        let venue = FloorVenue(groundFloorAltitude: 100, floorHeight: 3.5, latitude: 47, longitude: 8, radius: 100)
        #expect(run(venue, latitude: 47) == 0)
        #expect(run(venue, latitude: 47.01) == nil)
    }

    @Test func venueProblems() {
        #expect(FloorVenue(groundFloorAltitude: 100, floorHeight: 3.5).problem == nil)
        #expect(FloorVenue(groundFloorAltitude: 100, floorHeight: 0.5).problem != nil)
        #expect(FloorVenue(groundFloorAltitude: .nan, floorHeight: 3.5).problem != nil)
        #expect(FloorVenue(groundFloorAltitude: 100, floorHeight: 3.5, latitude: 1).problem != nil)
        #expect(AltitudeFusion(venue: FloorVenue(groundFloorAltitude: 0, floorHeight: 50)).floors == nil)
    }
}

@testable import CoreLocationEngine
import Foundation
import Testing

/// Compass headings into the fusion filter (decision 0095, Compass): the yaw GNSS alone cannot give while standing.
@Suite struct CompassFusionTests {
    /// A car waits a minute (GNSS on, no course: the filter cannot align from GNSS); GNSS is lost 50 s in, still
    /// standing (an underground car park), and the car drives off east inside the 30 s outage, reaching 12 m/s. The
    /// body's true heading comes with every tenth sample (10 Hz, 2° noise, as a GNSS compass or a calibrated
    /// magnetometer gives it). With it the filter aligns while standing, learns the gyro's bias from it, and the
    /// outage is dead-reckoned: a fused fix every second, the last one far closer to the truth than the last fix held
    /// (measured: 0.8 m against 209 m). Without the headings the filter never aligns and nothing at all is delivered
    /// in the outage — what the test checks first, so it fails without the wiring.
    @Test func theCompassAlignsTheFilterBeforeTheCarMovesAndCarriesItThroughAnOutage() throws {
        let drive = try FusionDrive(seconds: 150) { t in t < 60 ? 0 : min(12, 2 * (t - 60)) }
        let cut = (FusionDrive.start + 50.5)...(FusionDrive.start + 80.5)
        var noise = ScenarioRandom(seed: 42)
        let withCompass = drive.samples.enumerated().map { k, sample -> InertialSample in
            guard k % 10 == 0 else { return sample }
            var sample = sample
            let truth = 90 - drive.truth(at: sample.time).yaw * 180 / .pi
            sample.heading = InertialSample.BodyHeading(
                degrees: HeadingMath.normalized(truth + 2 * noise.gaussian()), accuracy: 3, isTrue: true)
            return sample
        }

        func run(_ samples: [InertialSample]) -> [Fix] {
            var d = driver([gnss, imu])
            d.advance(to: FusionDrive.start)
            d.send(.client(app, .startUpdates(UpdateRequest())))
            let sent = drive.fixes.compactMap { entry -> (time: Double, fix: Fix)? in
                let time = drive.synthesizer.truth[entry.index].time
                return cut.contains(time) ? nil : (time, entry.fix)
            }
            d.replay(sent, through: gnss.id, samples: samples, through: imu.id)
            return d.deliveries(to: app).flatMap(\.fixes)
        }

        let without = run(drive.samples)
        #expect(without.filter { cut.contains($0.timestamp.timeIntervalSince1970) }.isEmpty, "GNSS alone: no yaw")
        #expect(!without.contains { $0.isFused && $0.timestamp.timeIntervalSince1970 < cut.lowerBound })

        let delivered = run(withCompass)
        let standing = delivered.filter { $0.timestamp.timeIntervalSince1970 < cut.lowerBound }
        #expect(standing.filter { $0.isFused }.count >= 45, "fused while standing: the compass aligned the filter")
        let inside = delivered.filter { cut.contains($0.timestamp.timeIntervalSince1970) }
        #expect(inside.count >= 29, "a dead-reckoned fix every second of the outage")
        #expect(inside.allSatisfy { $0.isFused })
        let last = try #require(inside.last)
        let truth = drive.truth(at: last.timestamp.timeIntervalSince1970)
        let held = try #require(standing.last)
        let (e0, n0) = drive.synthesizer.plane.project(latitude: held.latitude, longitude: held.longitude)
        let heldError = hypot(e0 - truth.east, n0 - truth.north)
        let fused = drive.error(of: last)
        #expect(heldError > 150, "the car moved \(heldError) m in the outage")
        #expect(fused < 0.1 * heldError, "dead reckoning \(fused) m vs the last fix held \(heldError) m")
        #expect(fused < 2 * last.horizontalAccuracy, "honest: \(fused) m, ±\(last.horizontalAccuracy) m")
    }

    /// A magnetometer's heading is magnetic: the filter adds the WMM2025 declination at the last GNSS fix. Near
    /// Cape Farewell (Greenland) in 2026 the declination is tens of degrees west, so a compass reading 100° magnetic
    /// must put the yaw at 100° + declination, not 100°. An uncalibrated reading (accuracy −1) is not used at all.
    @Test func aMagneticHeadingGetsTheDeclinationAtTheLastFix() throws {
        let date = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let place = HeadingLocation(latitude: 60, longitude: -44)
        let declination = try #require(HeadingMath.declination(at: place, date: date))
        #expect(abs(declination) > 10, "a place where it matters (\(declination)°)")
        let fix = Fix(
            latitude: place.latitude, longitude: place.longitude, horizontalAccuracy: 5, speed: 0, speedAccuracy: 0.3,
            timestamp: date)

        func still(_ time: Double, _ heading: InertialSample.BodyHeading?) -> InertialSample {
            InertialSample(
                time: time, accelerationX: 0, accelerationY: 0, accelerationZ: 9.806_65, rotationRateX: 0,
                rotationRateY: 0, rotationRateZ: 0, heading: heading)
        }
        var fusion = InertialFusion()
        _ = fusion.propagate(still(10, nil))
        _ = fusion.fuse(fix, from: gnss.id, at: 10)
        _ = fusion.propagate(still(10.01, InertialSample.BodyHeading(degrees: 100, accuracy: -1, isTrue: false)))
        #expect(!fusion.filter.isAligned, "an uncalibrated compass is not used")
        _ = fusion.propagate(still(10.02, InertialSample.BodyHeading(degrees: 100, accuracy: 2, isTrue: false)))
        #expect(fusion.filter.isAligned)
        let heading = HeadingMath.normalized(90 - fusion.filter.yaw.value * 180 / .pi)
        #expect(HeadingMath.difference(heading, 100 + declination) < 0.01, "\(heading)° for \(100 + declination)°")
        #expect(abs(fusion.filter.yaw.sigma * 180 / .pi - 2) < 0.01, "the heading's accuracy is its σ")
    }
}

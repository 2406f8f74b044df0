import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

struct MagnetometerCalibrationTests {
    /// Samples of a 50 µT field seen in 200 seeded random orientations through a hard-iron offset
    /// (12, −30, 7) µT and a symmetric soft-iron distortion with cross-axis terms (gains 1.1, 0.9, 1.0;
    /// couplings 0.08, −0.05, 0.04), with ±0.2 µT uniform noise. The fit must recover the offset to
    /// 0.3 µT, and the corrected samples must point where the true field points (within 0.5°: a
    /// symmetric distortion is undone without rotation) with one strength (spread < 1 µT).
    @Test func recoversHardAndSoftIron() throws {
        var random = SplitMix64(seed: 7)
        let offset = DeviceVector(x: 12, y: -30, z: 7)
        let distortion = [
            DeviceVector(x: 1.1, y: 0.08, z: -0.05), DeviceVector(x: 0.08, y: 0.9, z: 0.04),
            DeviceVector(x: -0.05, y: 0.04, z: 1.0),
        ]
        var truths: [DeviceVector] = []
        var samples: [DeviceVector] = []
        for _ in 0..<200 {
            let z = Double.random(in: -1...1, using: &random)
            let phi = Double.random(in: 0..<(2 * .pi), using: &random)
            let r = (1 - z * z).squareRoot()
            let truth = DeviceVector(x: 50 * r * cos(phi), y: 50 * r * sin(phi), z: 50 * z)
            let noise = DeviceVector(
                x: .random(in: -0.2...0.2, using: &random), y: .random(in: -0.2...0.2, using: &random),
                z: .random(in: -0.2...0.2, using: &random))
            let distorted = DeviceVector(
                x: distortion[0].dot(truth), y: distortion[1].dot(truth), z: distortion[2].dot(truth))
            truths.append(truth)
            samples.append(distorted + offset + noise)
        }
        let fit = try #require(MagnetometerCalibration.fit(samples))
        #expect(abs(fit.offset.x - 12) < 0.3 && abs(fit.offset.y + 30) < 0.3 && abs(fit.offset.z - 7) < 0.3)
        let corrected = samples.map(fit.apply)
        let strengths = corrected.map(\.length)
        #expect((strengths.max() ?? 0) - (strengths.min() ?? 0) < 1)
        let worstAngle =
            zip(corrected, truths).map { c, t in
                acos(min(1, c.dot(t) / (c.length * t.length))) * 180 / .pi
            }.max() ?? 180
        #expect(worstAngle < 0.5)
        #expect(fit.headingAccuracy >= 2 && fit.headingAccuracy < 3)
    }

    /// Samples from one orientation only cannot calibrate: no fit rather than a wrong one.
    @Test func refusesDegenerateSamples() {
        let still = (0..<50).map { DeviceVector(x: 20 + Double($0 % 3) * 0.01, y: 5, z: -40) }
        #expect(MagnetometerCalibration.fit(still) == nil)
        #expect(MagnetometerCalibration.fit([DeviceVector(x: 1, y: 2, z: 3)]) == nil)
    }

    @Test func storePersistsWithMode0600() throws {
        let directory = NSTemporaryDirectory() + "calib-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = MagnetometerCalibrationStore(directory: directory)
        let calibration = MagnetometerCalibration(
            offset: DeviceVector(x: 1, y: 2, z: 3), softIron: MagnetometerCalibration.identity, headingAccuracy: 4,
            sampleCount: 100
        )
        try store.save(calibration, key: "ak8975-iio:device0")
        #expect(store.load(key: "ak8975-iio:device0") == calibration)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path(for: "ak8975-iio:device0"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(store.load(key: "other") == nil)
        #expect(
            MagnetometerCalibrationStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/x"])
                == "/x/corelocation/magnetometer")
    }
}

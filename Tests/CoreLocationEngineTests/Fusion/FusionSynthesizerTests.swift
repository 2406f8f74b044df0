import CoreLocationEngine
import Foundation
import Testing

/// The IMU synthesiser and the recording format (decision 0095).
@Suite struct FusionSynthesizerTests {
    /// A circle of radius 200 m driven at 10 m/s (one point a second for 5 minutes).
    static func circle() -> [(time: Double, latitude: Double, longitude: Double)] {
        let plane = LocalTangentPlane(latitude: 45.3, longitude: 13.7)
        return (0...300).map { t in
            let angle = Double(t) * 10 / 200
            let (lat, lon) = plane.unproject(east: 200 * sin(angle), north: 200 * (1 - cos(angle)))
            return (Double(t) + 1_600_000_000, lat, lon)
        }
    }

    @Test func theSameSeedGivesTheSameSamples() throws {
        let synth = try #require(InertialSynthesizer(points: Self.circle()))
        let a = synth.inertialSamples(seed: 7)
        let b = synth.inertialSamples(seed: 7)
        let c = synth.inertialSamples(seed: 8)
        #expect(a == b)
        #expect(a != c)
        #expect(a.count == 30_001)
        let fixesA = synth.gnssFixes(seed: 3).map(\.fix)
        let fixesB = synth.gnssFixes(seed: 3).map(\.fix)
        #expect(fixesA == fixesB)
    }

    /// On the circle an ideal IMU reads the centripetal force v²/r = 0.5 m/s² to the left and a yaw rate v/r = 0.05
    /// rad/s (away from the ends, where the spline's natural boundary straightens the path).
    @Test func anIdealIMUReadsTheCircle() throws {
        let synth = try #require(InertialSynthesizer(points: Self.circle()))
        let samples = synth.inertialSamples(model: .perfect, seed: 1)
        let middle = samples[10_000..<20_000]
        let lateral = middle.map(\.accelerationY).reduce(0, +) / Double(middle.count)
        let rate = middle.map(\.rotationRateZ).reduce(0, +) / Double(middle.count)
        // The three 5 s moving averages shrink a 200 m circle's radius by ≈ 0.4 % (σ² ≈ 6 s²: r · (1 − e^{−ω²σ²/2})
        // with ω = 0.05 rad/s), which changes v²/r and v/r by under 1 %: 2 % tolerances.
        #expect(abs(lateral - 0.5) < 0.01)
        #expect(abs(rate - 0.05) < 0.001)
        #expect(middle.allSatisfy { abs($0.accelerationZ - 9.806_65) < 1e-12 })
    }

    /// Dead reckoning on the synthesiser's ideal IMU from the true state retraces the truth: the two conventions
    /// (axes, signs, the yaw's origin) agree. 30 s at 10 m/s on the circle; bound 1 m (first-order integration and
    /// the finite-difference acceleration, each a few centimetres here).
    @Test func deadReckoningOnIdealSamplesRetracesTheTruth() throws {
        let synth = try #require(InertialSynthesizer(points: Self.circle()))
        let samples = synth.inertialSamples(model: .perfect, seed: 1)
        let fixes = synth.gnssFixes(model: GNSSErrorModel(
            positionCorrelated: 0, positionCorrelation: 30, positionWhite: 0.01, velocity: 0.01), seed: 1)
        var filter = FusionFilter()
        let startFix = try #require(fixes.first { $0.index == 10_000 })
        filter.update(gnss: startFix.fix, at: synth.truth[10_000].time)
        #expect(filter.isAligned)
        for k in 10_001...13_000 { filter.propagate(samples[k]) }
        let estimate = try #require(filter.estimate)
        let truth = synth.truth[13_000]
        let (east, north) = synth.plane.project(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(hypot(east - truth.east, north - truth.north) < 1)
    }

    @Test func theRecordingFormatRoundTrips() throws {
        let synth = try #require(InertialSynthesizer(points: Self.circle()))
        let samples = Array(synth.inertialSamples(seed: 2).prefix(500))
        let text = InertialRecording.encode(samples, comments: ["synthetic BMI160, seed 2"])
        #expect(text.hasPrefix("# corelocation-imu 1\n# synthetic BMI160, seed 2\nt,ax,ay,az,gx,gy,gz\n"))
        let decoded = try InertialRecording.decode(text)
        #expect(decoded.count == 500)
        for (a, b) in zip(decoded, samples) {
            #expect(abs(a.time - b.time) <= 5e-7)
            #expect(abs(a.accelerationX - b.accelerationX) <= 5e-7)
            #expect(abs(a.rotationRateZ - b.rotationRateZ) <= 5e-7)
        }
    }

    @Test func aBadLineIsNamed() {
        let text = "# corelocation-imu 1\nt,ax,ay,az,gx,gy,gz\n1,0,0,9.8,0,0,0\n2,0,0,nan,0,0,0\n"
        let expected = InertialRecording.DecodingError(
            line: 4, message: "expected 7 finite numbers t,ax,ay,az,gx,gy,gz")
        #expect(throws: expected) {
            try InertialRecording.decode(text)
        }
    }
}

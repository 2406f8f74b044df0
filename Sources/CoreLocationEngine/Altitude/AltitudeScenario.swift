import Foundation

/// Seeded synthetic altitude data for tests and `Benchmarks/altitude`: a true altitude profile, the
/// pressure a barometer would read on it (with noise and the weather drifting), and GNSS altitudes
/// with time-correlated error — so the same seed replays the same run.
///
/// Models (each justified by the input it stands for):
/// - pressure: p = p₀(t) · (1 − h/44 330.8)^5.255 (the standard atmosphere's shape under a sea-level
///   pressure p₀ that the weather moves), p₀(t) = `seaLevelPressure` + `weatherDrift` · t / 3600
///   (the 1 hPa/h), plus white noise `pressureNoise` hPa (BMP280/DPS310/LPS22 at their
///   default oversampling: 0.02–0.05 hPa RMS);
/// - GNSS: h + e(t), e a first-order Gauss–Markov process, σ `gnssSigma` (the 5–10 m) and
///   correlation time `gnssCorrelation` s (GNSS height errors wander with the satellite geometry and
///   multipath; white noise would flatter any filter), reported with verticalAccuracy = σ;
///   no fixes inside `outages`.
public struct AltitudeScenario: Sendable {
    public struct Sample: Sendable {
        public var time: Double
        public var trueAltitude: Double
        public var pressure: Double
        /// nil on the half-second between GNSS epochs and during outages.
        public var gnssAltitude: Double?
    }

    public var seed: UInt64 = 1
    public var duration: Double = 1800
    /// Seconds between pressure samples (GNSS every second).
    public var step: Double = 0.5
    public var seaLevelPressure: Double = 1020
    public var weatherDrift: Double = -1
    public var pressureNoise: Double = 0.03
    public var gnssSigma: Double = 7
    public var gnssCorrelation: Double = 15
    public var outages: [ClosedRange<Double>] = []
    /// True altitude (metres above mean sea level) at a time.
    public var profile: @Sendable (Double) -> Double

    public init(profile: @escaping @Sendable (Double) -> Double) {
        self.profile = profile
    }

    /// A hill walked over twice: 120 m up and down in 15 minutes, with the small ups and downs of a path.
    public static func hill(seed: UInt64 = 1) -> AltitudeScenario {
        var scenario = AltitudeScenario { t in
            200 + 60 * (1 - cos(2 * .pi * t / 900)) + 2 * sin(2 * .pi * t / 47)
        }
        scenario.seed = seed
        return scenario
    }

    /// A building: 3.5 m storeys over ground level 100 m; `stops` is (level, seconds standing there);
    /// between stops 15 s of stairs per storey (0.23 m/s).
    public static func staircase(
        seed: UInt64 = 1, ground: Double = 100, storey: Double = 3.5, stops: [(Int, Double)]
    ) -> AltitudeScenario {
        var segments: [(start: Double, from: Double, to: Double, moveEnd: Double, end: Double)] = []
        var time = 0.0
        var level = stops.first?.0 ?? 0
        for (next, stay) in stops {
            let move = 15 * Double(abs(next - level))
            let from = ground + Double(level) * storey
            let to = ground + Double(next) * storey
            segments.append((time, from, to, time + move, time + move + stay))
            time += move + stay
            level = next
        }
        let frozen = segments
        var scenario = AltitudeScenario { t in
            guard let segment = frozen.first(where: { t < $0.end }) ?? frozen.last else { return ground }
            if t >= segment.moveEnd { return segment.to }
            let fraction = (t - segment.start) / max(segment.moveEnd - segment.start, 1e-9)
            return segment.from + (segment.to - segment.from) * max(0, fraction)
        }
        scenario.seed = seed
        scenario.duration = time
        return scenario
    }

    /// The samples, every `step` seconds from 0 to `duration`.
    public func samples() -> [Sample] {
        var random = ScenarioRandom(seed: seed)
        var error = gnssSigma * random.gaussian()
        var samples: [Sample] = []
        let count = Int((duration / step).rounded(.down))
        var lastGNSS = 0.0
        for index in 0...count {
            let t = Double(index) * step
            let h = profile(t)
            let p0 = seaLevelPressure + weatherDrift * t / 3600
            let pressure = p0 * pow(1 - h / 44_330.8, 5.255) + pressureNoise * random.gaussian()
            var gnss: Double?
            let isEpoch = abs(t.rounded() - t) < 1e-9
            if isEpoch {
                // Gauss–Markov: e ← e·φ + σ·√(1−φ²)·n keeps the variance σ².
                let phi = exp(-(t - lastGNSS) / gnssCorrelation)
                error = error * phi + gnssSigma * (1 - phi * phi).squareRoot() * random.gaussian()
                lastGNSS = t
                if !outages.contains(where: { $0.contains(t) }) { gnss = h + error }
            }
            samples.append(Sample(time: t, trueAltitude: h, pressure: pressure, gnssAltitude: gnss))
        }
        return samples
    }
}

/// SplitMix64 (the same generator as the simulator's `SplitMix64`, which lives in the sources layer).
struct ScenarioRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func gaussian() -> Double {
        let u1 = 1 - Double(next() >> 11) * 0x1p-53
        let u2 = Double(next() >> 11) * 0x1p-53
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

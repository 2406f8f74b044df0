import Foundation

/// A seeded model of a real receiver's errors, applied to simulated fixes (`--noise`).
///
/// - **Drift**: the position error is a 2-D first-order Gauss–Markov process (an exponentially
///   correlated random walk), one independent process per axis (north, east) with correlation time
///   `correlationTime`. Its per-axis standard deviation is σ = horizontalAccuracy / 1.5096, so that
///   the radius containing 68 % of errors (a Rayleigh distribution: r₆₈ = σ·√(−2 ln 0.32)) equals
///   the fix's stated `horizontalAccuracy`, as Core Location's accuracy means. Altitude gets a 1-D
///   process with σ = `verticalAccuracy`. Speed and course are left as derived (receivers measure
///   them by Doppler, far more precisely than by differencing positions).
/// - **Outliers**: each fix is, with probability `outlierProbability`, displaced further by a
///   Rayleigh-distributed distance (per-axis σ = `outlierScale`) in a uniform direction, and then
///   reports `horizontalAccuracy × outlierAccuracyFactor`, as receivers inflate their estimate under
///   multipath (they are often still optimistic).
/// - **Dropouts**: signal loss starts as a Poisson process at `dropoutRate` per second; each lasts a
///   uniform `dropoutDuration`. The source emits `.unavailable` when one starts and no fixes until it
///   ends.
///
/// The defaults are typical of a phone or a consumer receiver in a city.
public struct NoiseModel: Sendable, Hashable {
    /// Seed of the generator; the same seed gives the same errors.
    public var seed: UInt64
    /// Correlation time of the drift, seconds (> 0).
    public var correlationTime: Double
    /// Chance that a fix is an outlier, in [0, 1].
    public var outlierProbability: Double
    /// Per-axis standard deviation of an outlier's extra displacement, metres.
    public var outlierScale: Double
    /// Factor applied to the reported horizontal accuracy of an outlier.
    public var outlierAccuracyFactor: Double
    /// Mean number of dropouts per second of running time.
    public var dropoutRate: Double
    /// Length of a dropout, seconds.
    public var dropoutDuration: ClosedRange<Double>

    public init(
        seed: UInt64,
        correlationTime: Double = 20,
        outlierProbability: Double = 0.01,
        outlierScale: Double = 25,
        outlierAccuracyFactor: Double = 6,
        dropoutRate: Double = 1.0 / 600,
        dropoutDuration: ClosedRange<Double> = 10...30
    ) {
        self.seed = seed
        self.correlationTime = correlationTime
        self.outlierProbability = outlierProbability
        self.outlierScale = outlierScale
        self.outlierAccuracyFactor = outlierAccuracyFactor
        self.dropoutRate = dropoutRate
        self.dropoutDuration = dropoutDuration
    }

    /// r₆₈ / σ for a 2-D isotropic Gaussian: √(−2 ln(1 − 0.68)) ≈ 1.5096.
    public static let radius68PerSigma = (-2 * log(1 - 0.68)).squareRoot()
}

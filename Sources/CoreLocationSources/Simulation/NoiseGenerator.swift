import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

/// What the noise model did to one fix.
public enum NoiseOutcome: Sendable, Equatable {
    /// The fix to deliver (perturbed).
    case fix(Fix)
    /// No fix: the receiver has lost the signal. `started` is true for the first fix of a dropout.
    case dropout(started: Bool)
}

/// The running state of a `NoiseModel`: pure, fed with time.
public struct NoiseGenerator: Sendable {
    public let model: NoiseModel
    private var random: SplitMix64
    /// Unit-variance Gauss–Markov states (north, east, up); nil before the first fix.
    private var drift: (north: Double, east: Double, up: Double)?
    private var lastTime: Double?
    private var dropoutEnd: Double?

    public init(model: NoiseModel) {
        self.model = model
        self.random = SplitMix64(seed: model.seed)
    }

    /// Applies the model to `fix`, observed at `time` (seconds on any monotonic timeline; calls must
    /// not go back in time — an earlier time is treated as no time passing).
    public mutating func apply(to fix: Fix, at time: Double) -> NoiseOutcome {
        let dt = max(0, time - (lastTime ?? time))
        lastTime = time
        evolveDrift(dt: dt)

        if let end = dropoutEnd {
            if time < end { return .dropout(started: false) }
            dropoutEnd = nil
        }
        if dt > 0, model.dropoutRate > 0, random.nextUnit() < 1 - exp(-model.dropoutRate * dt) {
            let span = model.dropoutDuration
            dropoutEnd = time + span.lowerBound + (span.upperBound - span.lowerBound) * random.nextUnit()
            return .dropout(started: true)
        }

        var result = fix
        let sigma = max(0, fix.horizontalAccuracy) / NoiseModel.radius68PerSigma
        var north = (drift?.north ?? 0) * sigma
        var east = (drift?.east ?? 0) * sigma
        if random.nextUnit() < model.outlierProbability {
            north += random.nextGaussian() * model.outlierScale
            east += random.nextGaussian() * model.outlierScale
            result.horizontalAccuracy = fix.horizontalAccuracy * model.outlierAccuracyFactor
        }
        let distance = (north * north + east * east).squareRoot()
        if distance > 0, fix.horizontalAccuracy >= 0 {
            let moved = Geodesic.wgs84.direct(
                latitude1: fix.latitude, longitude1: fix.longitude,
                azimuth1: atan2(east, north) * 180 / .pi, distance: distance
            )
            result.latitude = moved.latitude
            result.longitude = Self.wrapped(moved.longitude)
        }
        if fix.verticalAccuracy > 0 {
            let up = (drift?.up ?? 0) * fix.verticalAccuracy
            result.altitude += up
            result.ellipsoidalAltitude += up
        }
        return .fix(result)
    }

    /// x ← φ·x + √(1 − φ²)·w, φ = exp(−dt/τ): keeps unit variance for any step, so the statistics do
    /// not depend on the fix rate. The first state is drawn from the stationary distribution.
    private mutating func evolveDrift(dt: Double) {
        guard let current = drift else {
            drift = (random.nextGaussian(), random.nextGaussian(), random.nextGaussian())
            return
        }
        guard dt > 0 else { return }
        let phi = exp(-dt / max(model.correlationTime, .leastNonzeroMagnitude))
        let gain = (1 - phi * phi).squareRoot()
        drift = (
            phi * current.north + gain * random.nextGaussian(),
            phi * current.east + gain * random.nextGaussian(),
            phi * current.up + gain * random.nextGaussian()
        )
    }

    private static func wrapped(_ longitude: Double) -> Double {
        var value = longitude
        if value > 180 { value -= 360 } else if value < -180 { value += 360 }
        return value
    }
}

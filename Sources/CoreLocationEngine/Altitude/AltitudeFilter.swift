import Foundation

/// Fuses barometric height changes with GNSS altitude: a three-state Kalman filter (decision 0032).
///
/// State: `h`, the altitude above mean sea level (metres); `b`, the barometer's offset (its
/// standard-atmosphere height minus `h`: the weather's sea-level pressure and the sensor's bias);
/// `d`, the offset's rate (m/s: the weather drifting, ≈ 8 m/h per hPa/h).
/// - a pressure sample measures `h + b` with `pressureNoise` (σ, metres);
/// - a GNSS altitude measures `h` with its `verticalAccuracy` (1 σ, decision 0005), inflated for the
///   error's correlation in time (`gnssCorrelationTime`: GNSS height errors wander over tens of
///   seconds, so consecutive fixes are not independent and the filter must not average them as if
///   they were — that would make `verticalAccuracy` dishonest);
/// - `h` moves freely (random walk `verticalMotion`, m²/s: the barometer, not a motion model, tells
///   where it went); `b` and `d` follow the weather slowly (`offsetNoise`, `driftNoise`).
///
/// Why a Kalman filter and not a complementary one: the split between "fast from the barometer,
/// slow from GNSS" is the same, but the Kalman filter also gives the variance of `h` — the
/// `verticalAccuracy` — which grows by itself through a GNSS outage, and weighs each GNSS fix by its
/// own accuracy.
///
/// Values are valid only after a pressure sample; before a GNSS altitude calibrates the offset, the
/// altitude is the standard atmosphere's with `uncalibratedOffsetSigma` (σ, metres) of uncertainty.
public struct AltitudeFilter: Sendable, Hashable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// σ, metres, of one barometric height (≈ 0.03 hPa of sensor noise near sea level).
        public var pressureNoise: Double = 0.3
        /// Random walk of the true altitude, m²/s (walking, lifts, driving over hills).
        public var verticalMotion: Double = 4
        /// Random walk of the offset, m²/s.
        public var offsetNoise: Double = 1e-4
        /// Random walk of the offset's rate, m²/s³ (the weather changing its trend over hours).
        public var driftNoise: Double = 1e-9
        /// σ, metres, of the offset before any GNSS altitude: the sea-level pressure's spread.
        public var uncalibratedOffsetSigma: Double = 250
        /// σ, m/s, of the offset's rate at start (3 hPa/h is a fast-moving front).
        public var initialDriftSigma: Double = 0.007
        /// Seconds over which GNSS vertical errors stay correlated.
        public var gnssCorrelationTime: Double = 20
        /// GNSS altitudes less accurate than this (metres) are not used ("GNSS is good").
        public var maximumGNSSAccuracy: Double = 30
        /// A GNSS altitude further than this many σ of the innovation is an outlier…
        public var outlierGate: Double = 5
        /// …unless this many come in a row: then the offset is re-learnt (the sensor was moved to
        /// another room, or the filter was wrong).
        public var outlierReset: Int = 5
        /// A pressure this many seconds old no longer gives altitudes.
        public var pressureMaximumAge: Double = 5

        public init() {}
    }

    public let parameters: Parameters
    /// [h, b, d] and its covariance (row-major 3 × 3); nil before the first pressure sample.
    private var x: [Double]?
    private var p = [Double](repeating: 0, count: 9)
    private var time: Double = 0
    private var lastPressureAt: Double?
    private var lastGNSSAt: Double?
    private var rejectedInARow = 0
    /// The last standard-atmosphere height the barometer gave (metres).
    public private(set) var barometricHeight: Double?
    /// True once a GNSS altitude has calibrated the offset.
    public private(set) var isCalibrated = false

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// A barometer reading at monotonic time `now`. Readings must have passed `PressureCheck`.
    public mutating func observe(pressure hectopascals: Double, at now: Double) {
        let z = PressureSample.standardAtmosphereHeight(hectopascals)
        guard z.isFinite else { return }
        barometricHeight = z
        lastPressureAt = now
        guard x != nil else {
            let offset = parameters.uncalibratedOffsetSigma * parameters.uncalibratedOffsetSigma
            let noise = parameters.pressureNoise * parameters.pressureNoise
            x = [z, 0, 0]
            // h + b = z is known to the sensor's noise; h and b separately only to the weather's spread.
            p = [offset + noise, -offset, 0, -offset, offset, 0, 0, 0,
                 parameters.initialDriftSigma * parameters.initialDriftSigma]
            time = now
            return
        }
        predict(to: now)
        update(h: [1, 1, 0], z: z, r: parameters.pressureNoise * parameters.pressureNoise, gate: nil)
    }

    /// A GNSS altitude (metres above mean sea level) with its vertical accuracy (1 σ, metres).
    /// Returns false when it was not used (too inaccurate, no barometer yet, or an outlier).
    @discardableResult
    public mutating func observe(gnssAltitude altitude: Double, accuracy: Double, at now: Double) -> Bool {
        guard x != nil, altitude.isFinite, accuracy > 0, accuracy <= parameters.maximumGNSSAccuracy else { return false }
        predict(to: now)
        let interval = lastGNSSAt.map { max(now - $0, 1e-3) } ?? parameters.gnssCorrelationTime
        lastGNSSAt = now
        // Variance of a mean of correlated samples ≈ σ² · 2τ/Δt (for τ ≫ Δt): inflate each one so that
        // a second of fixes counts as one independent measurement per 2τ.
        let inflation = max(1, 2 * parameters.gnssCorrelationTime / interval)
        let r = accuracy * accuracy * inflation
        if !isCalibrated {
            isCalibrated = true
            update(h: [1, 0, 0], z: altitude, r: accuracy * accuracy, gate: nil)
            return true
        }
        if update(h: [1, 0, 0], z: altitude, r: r, gate: parameters.outlierGate) {
            rejectedInARow = 0
            return true
        }
        rejectedInARow += 1
        guard rejectedInARow >= parameters.outlierReset, let state = x else { return false }
        // Persistent disagreement: forget the offset, keep the barometer's height.
        rejectedInARow = 0
        let sum = state[0] + state[1]
        x = [sum, 0, state[2]]
        let offset = parameters.uncalibratedOffsetSigma * parameters.uncalibratedOffsetSigma
        p = [offset, -offset, 0, -offset, offset, 0, 0, 0, p[8]]
        update(h: [1, 0, 0], z: altitude, r: accuracy * accuracy, gate: nil)
        return true
    }

    /// The fused altitude (metres above mean sea level) and its 1 σ accuracy at `now`, without
    /// changing the filter; nil without a recent pressure sample.
    public func estimate(at now: Double) -> (altitude: Double, accuracy: Double)? {
        guard let lastPressureAt, now - lastPressureAt <= parameters.pressureMaximumAge else { return nil }
        var copy = self
        copy.predict(to: now)
        guard let state = copy.x else { return nil }
        return (state[0], copy.p[0].squareRoot())
    }

    /// The offset's rate, m/s (the weather's drift as the barometer sees it); for diagnostics.
    public var offsetRate: Double? { x?[2] }

    private mutating func predict(to now: Double) {
        guard var state = x else { return }
        let dt = now - time
        guard dt > 0 else { return }
        time = now
        state[1] += state[2] * dt
        x = state
        // P ← F P Fᵀ + Q with F = [[1,0,0],[0,1,dt],[0,0,1]].
        let f = [1.0, 0, 0, 0, 1, dt, 0, 0, 1]
        var next = Self.multiply(Self.multiply(f, p), Self.transpose(f))
        let q = parameters.driftNoise
        next[0] += parameters.verticalMotion * dt
        next[4] += parameters.offsetNoise * dt + q * dt * dt * dt / 3
        next[5] += q * dt * dt / 2
        next[7] += q * dt * dt / 2
        next[8] += q * dt
        p = next
    }

    /// A scalar measurement z = H·x + noise(r). Returns false (and changes nothing) when the
    /// innovation is beyond `gate` σ.
    @discardableResult
    private mutating func update(h: [Double], z: Double, r: Double, gate: Double?) -> Bool {
        guard var state = x else { return false }
        let ph = (0..<3).map { row in (0..<3).reduce(0.0) { $0 + p[row * 3 + $1] * h[$1] } }
        let s = (0..<3).reduce(0.0) { $0 + h[$1] * ph[$1] } + r
        guard s > 0 else { return false }
        let innovation = z - (0..<3).reduce(0.0) { $0 + h[$1] * state[$1] }
        if let gate, innovation * innovation > gate * gate * s { return false }
        let k = ph.map { $0 / s }
        for i in 0..<3 { state[i] += k[i] * innovation }
        var next = p
        for i in 0..<3 {
            for j in 0..<3 { next[i * 3 + j] -= k[i] * ph[j] }
        }
        // Keep it symmetric against rounding.
        for i in 0..<3 {
            for j in (i + 1)..<3 {
                let mean = (next[i * 3 + j] + next[j * 3 + i]) / 2
                next[i * 3 + j] = mean
                next[j * 3 + i] = mean
            }
        }
        x = state
        p = next
        return true
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var c = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                c[i * 3 + j] = (0..<3).reduce(0.0) { $0 + a[i * 3 + $1] * b[$1 * 3 + j] }
            }
        }
        return c
    }

    private static func transpose(_ a: [Double]) -> [Double] {
        [a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]]
    }
}

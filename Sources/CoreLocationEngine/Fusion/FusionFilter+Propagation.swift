import Foundation

/// The state's dimension, for indexing the row-major covariance.
private let d = FusionFilter.n

extension FusionFilter {
    /// Propagates the state to `sample.time` with the sample's specific force and rate (dead reckoning).
    /// Returns false, changing nothing, for a sample that is implausible (`InertialSample.isPlausible`) or not
    /// later than the filter's time; before the first GNSS fix there is nothing to propagate and the sample only
    /// sets the time.
    @discardableResult
    public mutating func propagate(_ sample: InertialSample) -> Bool {
        guard sample.isPlausible else { return false }
        guard isInitialised, let last = time else {
            if isInitialised { time = sample.time }
            return isInitialised
        }
        let dt = sample.time - last
        guard dt > 0 else { return false }
        time = sample.time
        if !isAligned || dt > configuration.maximumSampleGap {
            constantVelocity(dt)
            if isAligned { x[4] += (sample.rotationRateZ - x[7]) * min(dt, configuration.maximumSampleGap) }
            return true
        }
        strapdown(sample, dt)
        return true
    }

    /// Moves the state to `time` without an IMU sample (constant velocity), for GNSS without an IMU or a fix
    /// that arrives after the last sample.
    public mutating func advance(to newTime: Double) {
        guard isInitialised, let last = time, newTime > last, newTime.isFinite else { return }
        constantVelocity(newTime - last)
        time = newTime
    }

    private mutating func strapdown(_ s: InertialSample, _ dt: Double) {
        let c = cos(x[4])
        let sn = sin(x[4])
        let fx = s.accelerationX - x[5]
        let fy = s.accelerationY - x[6]
        let aE = c * fx - sn * fy
        let aN = sn * fx + c * fy
        x[0] += x[2] * dt + 0.5 * aE * dt * dt
        x[1] += x[3] * dt + 0.5 * aN * dt * dt
        x[2] += aE * dt
        x[3] += aN * dt
        x[4] += (s.rotationRateZ - x[7]) * dt

        // F = I + the sparse terms below; P ← F P Fᵀ computed as (F (F P)ᵀ)ᵀ, touching only the non-zero entries.
        let h = 0.5 * dt * dt
        var f: [(Int, Int, Double)] = [
            (0, 2, dt), (1, 3, dt), (0, 4, -aN * h), (1, 4, aE * h),
            (2, 4, -aN * dt), (3, 4, aE * dt),
            (0, 5, -c * h), (0, 6, sn * h), (1, 5, -sn * h), (1, 6, -c * h),
            (2, 5, -c * dt), (2, 6, sn * dt), (3, 5, -sn * dt), (3, 6, -c * dt),
            (4, 7, -dt),
        ]
        decayGNSSError(dt, &f)
        verticalStrapdown(s, dt, &f)
        applyTransition(&f)
        addGNSSErrorNoise(dt)
        let cfg = configuration
        let qa = cfg.accelerationNoiseDensity * cfg.accelerationNoiseDensity
            + cfg.accelerationModelNoise * cfg.accelerationModelNoise
        let qg = cfg.rotationNoiseDensity * cfg.rotationNoiseDensity
        p[2 * d + 2] += qa * dt
        p[3 * d + 3] += qa * dt
        p[4 * d + 4] += qg * dt
        p[5 * d + 5] += cfg.accelerationBiasWalk * cfg.accelerationBiasWalk * dt
        p[6 * d + 6] += cfg.accelerationBiasWalk * cfg.accelerationBiasWalk * dt
        p[7 * d + 7] += cfg.rotationBiasWalk * cfg.rotationBiasWalk * dt
    }

    private mutating func constantVelocity(_ dt: Double) {
        x[0] += x[2] * dt
        x[1] += x[3] * dt
        var f: [(Int, Int, Double)] = [(0, 2, dt), (1, 3, dt)]
        decayGNSSError(dt, &f)
        if hasHeight {
            x[10] += x[11] * dt
            f.append((10, 11, dt))
        }
        applyTransition(&f)
        addGNSSErrorNoise(dt)
        // White acceleration: the exact discretisation for position/velocity pairs.
        let q = configuration.unalignedAccelerationNoise * configuration.unalignedAccelerationNoise
        for (i, j) in hasHeight ? [(0, 2), (1, 3), (10, 11)] : [(0, 2), (1, 3)] {
            p[i * d + i] += q * dt * dt * dt / 3
            p[i * d + j] += q * dt * dt / 2
            p[j * d + i] += q * dt * dt / 2
            p[j * d + j] += q * dt
        }
        if isAligned {
            let qg = configuration.rotationNoiseDensity * configuration.rotationNoiseDensity
            p[4 * d + 4] += qg * dt + p[7 * d + 7] * dt * dt
        }
        p[7 * d + 7] += configuration.rotationBiasWalk * configuration.rotationBiasWalk * dt
    }

    /// The vertical channel's strapdown step (level mount: body z is up): a_up = f_z − b_az − g(latitude, h);
    /// h += v_up dt + a_up dt²/2; v_up += a_up dt; g_up decays like g; the barometer's bias walks.
    private mutating func verticalStrapdown(_ s: InertialSample, _ dt: Double, _ f: inout [(Int, Int, Double)]) {
        guard hasHeight, let plane else { return }
        let up = s.accelerationZ - x[13] - Self.normalGravity(latitude: plane.originLatitude, height: x[10])
        let h = 0.5 * dt * dt
        x[10] += x[11] * dt + up * h
        x[11] += up * dt
        f.append(contentsOf: [(10, 11, dt), (10, 13, -h), (11, 13, -dt)])
        let cfg = configuration
        p[11 * d + 11] += (cfg.accelerationNoiseDensity * cfg.accelerationNoiseDensity
            + cfg.verticalAccelerationModelNoise * cfg.verticalAccelerationModelNoise) * dt
        p[13 * d + 13] += cfg.accelerationBiasWalk * cfg.accelerationBiasWalk * dt
    }

    /// The GNSS error states decay as a first-order Gauss–Markov process: g ← φ g, φ = exp(−dt / τ).
    private mutating func decayGNSSError(_ dt: Double, _ f: inout [(Int, Int, Double)]) {
        let phi = exp(-dt / configuration.gnssErrorCorrelation)
        x[8] *= phi
        x[9] *= phi
        f.append((8, 8, phi - 1))
        f.append((9, 9, phi - 1))
        if hasHeight {
            x[14] *= phi
            f.append((14, 14, phi - 1))
        }
    }

    private mutating func addGNSSErrorNoise(_ dt: Double) {
        let phi = exp(-dt / configuration.gnssErrorCorrelation)
        let q = (1 - phi * phi) * correlatedSigma * correlatedSigma
        p[8 * d + 8] += q
        p[9 * d + 9] += q
        if hasHeight {
            p[14 * d + 14] += (1 - phi * phi) * verticalCorrelatedSigma * verticalCorrelatedSigma
            p[12 * d + 12] += configuration.barometerBiasWalk * configuration.barometerBiasWalk * dt
        }
    }

    /// P ← F P Fᵀ for F = I + Σ e_i f e_jᵀ over the listed (i, j, f).
    private mutating func applyTransition(_ f: inout [(Int, Int, Double)]) {
        p.withUnsafeMutableBufferPointer { m in
            // Rows: (F P)[i, :] = P[i, :] + Σ f · P[j, :], using the old rows (no term reads a row it writes
            // after writing it: a row j that is also an i is read first through a copy).
            var rows = [Double](repeating: 0, count: d * d)
            for k in 0..<(d * d) { rows[k] = m[k] }
            for (i, j, value) in f {
                for k in 0..<d { m[i * d + k] += value * rows[j * d + k] }
            }
            // Columns: (F P Fᵀ)[:, i] = (F P)[:, i] + Σ f · (F P)[:, j].
            for k in 0..<(d * d) { rows[k] = m[k] }
            for (i, j, value) in f {
                for k in 0..<d { m[k * d + i] += value * rows[k * d + j] }
            }
        }
        f.removeAll(keepingCapacity: true)
    }
}

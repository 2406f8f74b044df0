import Foundation

/// The state's dimension, for indexing the row-major covariance.
private let d = FusionFilter.n

extension FusionFilter {
    /// A GNSS fix: position (and velocity when `speed` and `speedAccuracy` are valid), in `Fix`'s units, at
    /// `time` on the filter's clock. The first valid fix starts the filter (the tangent plane's origin).
    /// Returns the position's outcome.
    @discardableResult
    public mutating func update(gnss fix: Fix, at fixTime: Double) -> Outcome {
        guard fix.horizontalAccuracy > 0, fix.horizontalAccuracy.isFinite, fix.latitude.isFinite,
            fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180, fixTime.isFinite
        else { return .ignored }
        guard let plane, time != nil else {
            initialise(from: fix, at: fixTime)
            return .initialised
        }
        advance(to: fixTime)
        // The vertical channel first, gated by itself (the horizontal updates do not observe height).
        update(height: fix)
        let (correlated, white) = gnssSigmas(fix)
        correlatedSigma = correlated
        let (e, nn) = plane.project(latitude: fix.latitude, longitude: fix.longitude)
        let outcome = update2(
            z: (e, nn), h0: Self.unit(0, 8), h1: Self.unit(1, 9), r: (white * white, white * white, 0))
        switch outcome {
        case .rejected:
            consecutiveRejections += 1
            if consecutiveRejections >= configuration.rejectionsBeforeReset {
                initialise(from: fix, at: fixTime, keepingBiases: true)
                return .initialised
            }
            return outcome
        default:
            consecutiveRejections = 0
            lastGNSSTime = fixTime
        }
        if let (ve, vn, cov) = velocity(of: fix) {
            _ = update2(z: (ve, vn), h0: Self.unit(2), h1: Self.unit(3), r: cov)
            if !isAligned, fix.speed >= configuration.alignmentSpeed {
                align(yaw: atan2(vn, ve), sigma: (cov.0 + cov.1).squareRoot() / fix.speed)
            }
        }
        recentre()
        return outcome
    }

    /// A compass heading: degrees clockwise from true north, `accuracy` 1 σ degrees. Aligns the yaw if nothing has.
    /// Only for an IMU mounted with x forward: the heading is the body's, not the course.
    @discardableResult
    public mutating func update(heading degrees: Double, accuracy: Double, at headingTime: Double) -> Outcome {
        guard isInitialised, degrees.isFinite, accuracy > 0, accuracy.isFinite, headingTime.isFinite
        else { return .ignored }
        let yaw = (90 - degrees) * .pi / 180
        let sigma = accuracy * .pi / 180
        guard isAligned else {
            align(yaw: yaw, sigma: sigma)
            return .initialised
        }
        var h = [Double](repeating: 0, count: d)
        h[4] = 1
        return update1(innovation: Self.wrap(yaw - x[4]), h: h, variance: sigma * sigma)
    }

    /// The vehicle constraint (no sideways body velocity), to be applied once per GNSS epoch or a few times a
    /// second; `propagate` does not apply it by itself so that its rate is the caller's choice.
    @discardableResult
    public mutating func applyVehicleConstraint() -> Outcome {
        guard configuration.vehicle, isAligned else { return .ignored }
        let c = cos(x[4])
        let s = sin(x[4])
        let speed = (x[2] * x[2] + x[3] * x[3]).squareRoot()
        guard speed >= configuration.vehicleConstraintSpeed else { return .ignored }
        let lateral = -s * x[2] + c * x[3]
        var h = [Double](repeating: 0, count: d)
        h[2] = -s
        h[3] = c
        h[4] = -(c * x[2] + s * x[3])
        return update1(
            innovation: -lateral, h: h,
            variance: configuration.lateralVelocityNoise * configuration.lateralVelocityNoise)
    }

    /// A barometer's pressure altitude (its standard-atmosphere height, `PressureSample.standardAtmosphereHeight`),
    /// measured at `pressureTime`: z = h + b_baro + noise (σ `pressureNoise`). Applied at the filter's time (the
    /// last IMU sample, at most `maximumSampleGap` away: the height moves v_up × that, centimetres); ignored before
    /// the height has started or when that far from the filter's time. Five rejections in a row (a sensor moved
    /// between rooms, a ventilation step) forget the bias.
    @discardableResult
    public mutating func update(pressureAltitude z: Double, at pressureTime: Double) -> Outcome {
        guard hasHeight, z.isFinite, pressureTime.isFinite, let time,
            abs(pressureTime - time) <= configuration.maximumSampleGap
        else {
            lastPressureOutcome = .ignored
            return .ignored
        }
        let r = configuration.pressureNoise * configuration.pressureNoise
        var outcome = update1(innovation: z - x[10] - x[12], h: Self.unit(10, 12), variance: r)
        if case .rejected = outcome {
            consecutivePressureRejections += 1
            if consecutivePressureRejections >= configuration.rejectionsBeforeReset {
                resetBarometerBias()
                outcome = update1(innovation: z - x[10] - x[12], h: Self.unit(10, 12), variance: r)
            }
        }
        if outcome == .accepted { consecutivePressureRejections = 0 }
        lastPressureOutcome = outcome
        return outcome
    }

    /// The barometer's bias unknown again (its prior), uncorrelated with the rest.
    private mutating func resetBarometerBias() {
        for k in 0..<d {
            p[12 * d + k] = 0
            p[k * d + 12] = 0
        }
        x[12] = 0
        p[12 * d + 12] = configuration.initialBarometerBias * configuration.initialBarometerBias
        consecutivePressureRejections = 0
    }

    /// A GNSS altitude (the fix's `ellipsoidalAltitude`, 1 σ `verticalAccuracy`): z = h + g_up + white, σ split
    /// like the horizontal one; starts the vertical channel. Five rejections in a row restart the height from the
    /// fix (the barometer's bias is then unknown again; the accelerometer's z bias is kept).
    private mutating func update(height fix: Fix) {
        guard fix.verticalAccuracy > 0, fix.verticalAccuracy.isFinite, fix.ellipsoidalAltitude.isFinite else {
            lastHeightOutcome = .ignored
            return
        }
        let (correlated, white) = verticalSigmas(fix)
        guard hasHeight else {
            initialiseHeight(from: fix)
            lastHeightOutcome = .initialised
            return
        }
        verticalCorrelatedSigma = correlated
        let outcome = update1(
            innovation: fix.ellipsoidalAltitude - x[10] - x[14], h: Self.unit(10, 14), variance: white * white)
        if case .rejected = outcome {
            consecutiveHeightRejections += 1
            if consecutiveHeightRejections >= configuration.rejectionsBeforeReset {
                initialiseHeight(from: fix)
                lastHeightOutcome = .initialised
                return
            }
        } else {
            consecutiveHeightRejections = 0
        }
        lastHeightOutcome = outcome
    }

    /// Starts (or restarts) the vertical block from a GNSS altitude: h = z with the fix's σ, split into g_up and
    /// white as in `initialise`; v_up 0 ± `initialVerticalVelocity`; b_baro unknown; b_az kept on a restart.
    private mutating func initialiseHeight(from fix: Fix) {
        let (correlated, white) = verticalSigmas(fix)
        let prior = configuration.initialAccelerationBias
        let az = hasHeight ? (x[13], p[13 * d + 13]) : (0, prior * prior)
        for i in 10..<d {
            x[i] = 0
            for k in 0..<d {
                p[i * d + k] = 0
                p[k * d + i] = 0
            }
        }
        verticalCorrelatedSigma = correlated
        x[10] = fix.ellipsoidalAltitude
        p[10 * d + 10] = correlated * correlated + white * white
        p[14 * d + 14] = correlated * correlated
        p[10 * d + 14] = -correlated * correlated
        p[14 * d + 10] = -correlated * correlated
        p[11 * d + 11] = configuration.initialVerticalVelocity * configuration.initialVerticalVelocity
        p[12 * d + 12] = configuration.initialBarometerBias * configuration.initialBarometerBias
        (x[13], p[13 * d + 13]) = az
        consecutiveHeightRejections = 0
        consecutivePressureRejections = 0
        hasHeight = true
    }

    /// The fix's vertical σ (`verticalAccuracy`, 1 σ) split like `gnssSigmas`.
    private func verticalSigmas(_ fix: Fix) -> (correlated: Double, white: Double) {
        let sigma = fix.verticalAccuracy * configuration.positionNoiseScale
        let fraction = min(max(configuration.gnssCorrelatedFraction, 0), 0.999)
        return (sigma * fraction, sigma * (1 - fraction * fraction).squareRoot())
    }

    /// The fix's σ per axis (its 68 % radius / 1.5096, times `positionNoiseScale`) split into the part correlated
    /// over `gnssErrorCorrelation` (states 8, 9) and the white rest.
    private func gnssSigmas(_ fix: Fix) -> (correlated: Double, white: Double) {
        let sigma = fix.horizontalAccuracy / Self.circular68 * configuration.positionNoiseScale
        let fraction = min(max(configuration.gnssCorrelatedFraction, 0), 0.999)
        return (sigma * fraction, sigma * (1 - fraction * fraction).squareRoot())
    }

    /// √(−2 ln 0.32): the 68 % radius of a circular 2-D Gaussian in units of its per-axis σ.
    public static let circular68 = (-2 * log(0.32)).squareRoot()

    static func wrap(_ angle: Double) -> Double {
        var a = angle.truncatingRemainder(dividingBy: 2 * .pi)
        if a > .pi { a -= 2 * .pi } else if a < -.pi { a += 2 * .pi }
        return a
    }

    private func velocity(of fix: Fix) -> (Double, Double, (Double, Double, Double))? {
        guard fix.speed >= 0, fix.speed.isFinite, fix.speedAccuracy > 0, fix.speedAccuracy.isFinite else { return nil }
        let along = max(fix.speedAccuracy, configuration.minimumVelocityNoise)
        guard fix.course >= 0, fix.course.isFinite else {
            // No direction (receivers drop the course when slow): the components are about zero, each with the
            // speed's half-square as variance (an isotropic velocity of that speed) plus the speed's own.
            let v = along * along + fix.speed * fix.speed / 2
            return (0, 0, (v, v, 0))
        }
        let across: Double
        if fix.courseAccuracy > 0, fix.courseAccuracy.isFinite {
            across = max(fix.speed * min(fix.courseAccuracy, 180) * .pi / 180, configuration.minimumVelocityNoise)
        } else {
            across = along
        }
        let course = fix.course * .pi / 180
        let ue = sin(course)
        let un = cos(course)
        // Rotate diag(along², across²) from (along-track, cross-track) to (east, north).
        let a2 = along * along
        let c2 = across * across
        let ee = a2 * ue * ue + c2 * un * un
        let nn = a2 * un * un + c2 * ue * ue
        let en = (a2 - c2) * ue * un
        return (fix.speed * ue, fix.speed * un, (ee, nn, en))
    }

    private mutating func initialise(from fix: Fix, at fixTime: Double, keepingBiases: Bool = false) {
        if plane == nil { plane = LocalTangentPlane(latitude: fix.latitude, longitude: fix.longitude) }
        guard let plane else { return }
        let biases = (x[5], x[6], x[7], p[5 * d + 5], p[6 * d + 6], p[7 * d + 7])
        let (e, nn) = plane.project(latitude: fix.latitude, longitude: fix.longitude)
        // The vertical block (10–14) is not the horizontal one's to reset: it is kept as it is (block-diagonal P).
        let vertical = x[10...]
        var verticalP = [Double](repeating: 0, count: (d - 10) * (d - 10))
        for i in 10..<d { for k in 10..<d { verticalP[(i - 10) * (d - 10) + k - 10] = p[i * d + k] } }
        x = [Double](repeating: 0, count: d)
        p = [Double](repeating: 0, count: d * d)
        x.replaceSubrange(10..., with: vertical)
        for i in 10..<d { for k in 10..<d { p[i * d + k] = verticalP[(i - 10) * (d - 10) + k - 10] } }
        if !hasHeight { update(height: fix) }
        // The fix is the truth plus the receiver's correlated error g (states 8, 9, prior mean 0) plus white noise:
        // the position's error is g + w, so it is correlated −σ_g² with g's.
        let (correlated, white) = gnssSigmas(fix)
        correlatedSigma = correlated
        x[0] = e
        x[1] = nn
        for (i, g) in [(0, 8), (1, 9)] {
            p[i * d + i] = correlated * correlated + white * white
            p[g * d + g] = correlated * correlated
            p[i * d + g] = -correlated * correlated
            p[g * d + i] = -correlated * correlated
        }
        if let (ve, vn, cov) = velocity(of: fix) {
            x[2] = ve
            x[3] = vn
            p[2 * d + 2] = cov.0
            p[3 * d + 3] = cov.1
            p[2 * d + 3] = cov.2
            p[3 * d + 2] = cov.2
        } else {
            p[2 * d + 2] = 100
            p[3 * d + 3] = 100
        }
        p[4 * d + 4] = .pi * .pi
        let ab = configuration.initialAccelerationBias
        let gb = configuration.initialRotationBias
        if keepingBiases {
            (x[5], x[6], x[7]) = (biases.0, biases.1, biases.2)
            (p[5 * d + 5], p[6 * d + 6], p[7 * d + 7]) = (biases.3, biases.4, biases.5)
        } else {
            (p[5 * d + 5], p[6 * d + 6], p[7 * d + 7]) = (ab * ab, ab * ab, gb * gb)
        }
        isAligned = false
        time = fixTime
        lastGNSSTime = fixTime
        consecutiveRejections = 0
        if let (ve, vn, cov) = velocity(of: fix), fix.speed >= configuration.alignmentSpeed {
            align(yaw: atan2(vn, ve), sigma: (cov.0 + cov.1).squareRoot() / fix.speed)
        }
    }

    /// Sets the yaw from an outside direction and forgets the yaw's correlations (it was unknown until now).
    private mutating func align(yaw: Double, sigma: Double) {
        x[4] = yaw
        for k in 0..<d {
            p[4 * d + k] = 0
            p[k * d + 4] = 0
        }
        p[4 * d + 4] = sigma * sigma
        p[4 * d + 7] = 0
        p[7 * d + 4] = 0
        isAligned = true
    }

    /// Moves the tangent plane's origin under the estimate when it has gone far, so the plane's error stays small.
    private mutating func recentre() {
        guard let plane, (x[0] * x[0] + x[1] * x[1]).squareRoot() > configuration.originRadius else { return }
        let (lat, lon) = plane.unproject(east: x[0], north: x[1])
        self.plane = LocalTangentPlane(latitude: lat, longitude: lon)
        x[0] = 0
        x[1] = 0
    }

    /// A 2-D measurement z = (h0 · x, h1 · x) + noise with covariance [[r.0, r.2], [r.2, r.1]], linear in x.
    mutating func update2(z: (Double, Double), h0: [Double], h1: [Double], r: (Double, Double, Double)) -> Outcome {
        var ph0 = [Double](repeating: 0, count: d)
        var ph1 = [Double](repeating: 0, count: d)
        var z0 = 0.0
        var z1 = 0.0
        for row in 0..<d {
            var a = 0.0
            var b = 0.0
            for c in 0..<d {
                a += p[row * d + c] * h0[c]
                b += p[row * d + c] * h1[c]
            }
            ph0[row] = a
            ph1[row] = b
            z0 += h0[row] * x[row]
            z1 += h1[row] * x[row]
        }
        var s00 = r.0
        var s11 = r.1
        var s01 = r.2
        for c in 0..<d {
            s00 += h0[c] * ph0[c]
            s11 += h1[c] * ph1[c]
            s01 += h0[c] * ph1[c]
        }
        let y0 = z.0 - z0
        let y1 = z.1 - z1
        let det = s00 * s11 - s01 * s01
        guard det > 0, det.isFinite else { return .ignored }
        let i00 = s11 / det
        let i11 = s00 / det
        let i01 = -s01 / det
        let d2 = y0 * (i00 * y0 + i01 * y1) + y1 * (i01 * y0 + i11 * y1)
        guard d2 <= configuration.gate2 else { return .rejected(distanceSquared: d2) }
        // K = P Hᵀ S⁻¹; x += K y; P −= K (H P), with H P's rows = (P h0)ᵀ, (P h1)ᵀ as P is symmetric.
        for row in 0..<d {
            let k0 = ph0[row] * i00 + ph1[row] * i01
            let k1 = ph0[row] * i01 + ph1[row] * i11
            x[row] += k0 * y0 + k1 * y1
            for c in 0..<d { p[row * d + c] -= k0 * ph0[c] + k1 * ph1[c] }
        }
        symmetrise()
        return .accepted
    }

    static func unit(_ indices: Int...) -> [Double] {
        var h = [Double](repeating: 0, count: FusionFilter.n)
        for i in indices { h[i] = 1 }
        return h
    }

    /// A scalar measurement with Jacobian row h and the given innovation.
    mutating func update1(innovation y: Double, h: [Double], variance: Double) -> Outcome {
        var ph = [Double](repeating: 0, count: d)
        for r in 0..<d {
            var sum = 0.0
            for c in 0..<d where h[c] != 0 { sum += p[r * d + c] * h[c] }
            ph[r] = sum
        }
        var s = variance
        for c in 0..<d { s += h[c] * ph[c] }
        guard s > 0, s.isFinite else { return .ignored }
        let d2 = y * y / s
        guard d2 <= configuration.gate1 else { return .rejected(distanceSquared: d2) }
        for r in 0..<d {
            let k = ph[r] / s
            x[r] += k * y
            for c in 0..<d { p[r * d + c] -= k * ph[c] }
        }
        x[4] = Self.wrap(x[4])
        symmetrise()
        return .accepted
    }

    private mutating func symmetrise() {
        for r in 0..<d {
            for c in (r + 1)..<d {
                let m = (p[r * d + c] + p[c * d + r]) / 2
                p[r * d + c] = m
                p[c * d + r] = m
            }
        }
    }
}

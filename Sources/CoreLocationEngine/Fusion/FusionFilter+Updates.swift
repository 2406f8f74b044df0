import Foundation

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
        let sigma = fix.horizontalAccuracy / Self.circular68 * configuration.positionNoiseScale
        let (e, nn) = plane.project(latitude: fix.latitude, longitude: fix.longitude)
        let outcome = update2(z: (e, nn), indices: (0, 1), variances: (sigma * sigma, sigma * sigma, 0))
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
            _ = update2(z: (ve, vn), indices: (2, 3), variances: cov)
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
        var h = [Double](repeating: 0, count: 8)
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
        var h = [Double](repeating: 0, count: 8)
        h[2] = -s
        h[3] = c
        h[4] = -(c * x[2] + s * x[3])
        return update1(
            innovation: -lateral, h: h,
            variance: configuration.lateralVelocityNoise * configuration.lateralVelocityNoise)
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
            // No direction: only a speed of about zero says anything about the velocity's components.
            guard fix.speed < along else { return nil }
            return (0, 0, (along * along + fix.speed * fix.speed, along * along + fix.speed * fix.speed, 0))
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
        let biases = (x[5], x[6], x[7], p[5 * 8 + 5], p[6 * 8 + 6], p[7 * 8 + 7])
        let (e, nn) = plane.project(latitude: fix.latitude, longitude: fix.longitude)
        x = [Double](repeating: 0, count: 8)
        p = [Double](repeating: 0, count: 64)
        let sigma = fix.horizontalAccuracy / Self.circular68 * configuration.positionNoiseScale
        x[0] = e
        x[1] = nn
        p[0] = sigma * sigma
        p[9] = sigma * sigma
        if let (ve, vn, cov) = velocity(of: fix) {
            x[2] = ve
            x[3] = vn
            p[2 * 8 + 2] = cov.0
            p[3 * 8 + 3] = cov.1
            p[2 * 8 + 3] = cov.2
            p[3 * 8 + 2] = cov.2
        } else {
            p[2 * 8 + 2] = 100
            p[3 * 8 + 3] = 100
        }
        p[4 * 8 + 4] = .pi * .pi
        let ab = configuration.initialAccelerationBias
        let gb = configuration.initialRotationBias
        if keepingBiases {
            (x[5], x[6], x[7]) = (biases.0, biases.1, biases.2)
            (p[5 * 8 + 5], p[6 * 8 + 6], p[7 * 8 + 7]) = (biases.3, biases.4, biases.5)
        } else {
            (p[5 * 8 + 5], p[6 * 8 + 6], p[7 * 8 + 7]) = (ab * ab, ab * ab, gb * gb)
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
        for k in 0..<8 {
            p[4 * 8 + k] = 0
            p[k * 8 + 4] = 0
        }
        p[4 * 8 + 4] = sigma * sigma
        p[4 * 8 + 7] = 0
        p[7 * 8 + 4] = 0
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

    /// A 2-D measurement of two state components: z = (x[i], x[j]) + noise with covariance [[a, c], [c, b]].
    mutating func update2(z: (Double, Double), indices: (Int, Int), variances: (Double, Double, Double)) -> Outcome {
        let (i, j) = indices
        let y0 = z.0 - x[i]
        let y1 = z.1 - x[j]
        let s00 = p[i * 8 + i] + variances.0
        let s11 = p[j * 8 + j] + variances.1
        let s01 = p[i * 8 + j] + variances.2
        let det = s00 * s11 - s01 * s01
        guard det > 0, det.isFinite else { return .ignored }
        let i00 = s11 / det
        let i11 = s00 / det
        let i01 = -s01 / det
        let d2 = y0 * (i00 * y0 + i01 * y1) + y1 * (i01 * y0 + i11 * y1)
        guard d2 <= configuration.gate2 else { return .rejected(distanceSquared: d2) }
        // K = P Hᵀ S⁻¹ (columns i and j of P times S⁻¹); x += K y; P -= K H P.
        var k0 = [Double](repeating: 0, count: 8)
        var k1 = [Double](repeating: 0, count: 8)
        for r in 0..<8 {
            let pi = p[r * 8 + i]
            let pj = p[r * 8 + j]
            k0[r] = pi * i00 + pj * i01
            k1[r] = pi * i01 + pj * i11
        }
        let rowI = Array(p[(i * 8)..<(i * 8 + 8)])
        let rowJ = Array(p[(j * 8)..<(j * 8 + 8)])
        for r in 0..<8 {
            x[r] += k0[r] * y0 + k1[r] * y1
            for c in 0..<8 { p[r * 8 + c] -= k0[r] * rowI[c] + k1[r] * rowJ[c] }
        }
        symmetrise()
        return .accepted
    }

    /// A scalar measurement with Jacobian row h and the given innovation.
    mutating func update1(innovation y: Double, h: [Double], variance: Double) -> Outcome {
        var ph = [Double](repeating: 0, count: 8)
        for r in 0..<8 {
            var sum = 0.0
            for c in 0..<8 where h[c] != 0 { sum += p[r * 8 + c] * h[c] }
            ph[r] = sum
        }
        var s = variance
        for c in 0..<8 { s += h[c] * ph[c] }
        guard s > 0, s.isFinite else { return .ignored }
        let d2 = y * y / s
        guard d2 <= configuration.gate1 else { return .rejected(distanceSquared: d2) }
        for r in 0..<8 {
            let k = ph[r] / s
            x[r] += k * y
            for c in 0..<8 { p[r * 8 + c] -= k * ph[c] }
        }
        x[4] = Self.wrap(x[4])
        symmetrise()
        return .accepted
    }

    private mutating func symmetrise() {
        for r in 0..<8 {
            for c in (r + 1)..<8 {
                let m = (p[r * 8 + c] + p[c * 8 + r]) / 2
                p[r * 8 + c] = m
                p[c * 8 + r] = m
            }
        }
    }
}

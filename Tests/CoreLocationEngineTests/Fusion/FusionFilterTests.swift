import CoreLocationEngine
import Foundation
import Testing

/// The fusion filter (decision 0095) on inputs whose right answer is known in closed form.
@Suite struct FusionFilterTests {
    static let origin = (latitude: 45.0, longitude: 13.7)
    static let plane = LocalTangentPlane(latitude: 45.0, longitude: 13.7)

    /// A GNSS fix `east`/`north` metres from the origin, moving east at `speed` m/s.
    static func fix(east: Double, north: Double, speed: Double = 10, accuracy: Double = 5) -> Fix {
        let (lat, lon) = plane.unproject(east: east, north: north)
        return Fix(
            latitude: lat, longitude: lon, horizontalAccuracy: accuracy, course: 90, courseAccuracy: 1,
            speed: speed, speedAccuracy: 0.2, timestamp: Date(timeIntervalSince1970: 0))
    }

    /// A level IMU sample: specific force (ax, ay) m/s² in the body frame, yaw rate wz rad/s.
    static func sample(_ t: Double, ax: Double = 0, ay: Double = 0, wz: Double = 0) -> InertialSample {
        InertialSample(
            time: t, accelerationX: ax, accelerationY: ay, accelerationZ: 9.806_65, rotationRateX: 0, rotationRateY: 0,
            rotationRateZ: wz)
    }

    /// A filter that has followed an eastward 10 m/s drive with exact GNSS for `seconds`, 100 Hz IMU between fixes.
    /// Exact fixes here: `positionNoiseScale` 1 (the default 3 is for receivers' time-correlated errors).
    static func converged(seconds: Int = 60, accelerationBias: Double = 0) -> FusionFilter {
        var configuration = FusionFilter.Configuration()
        configuration.positionNoiseScale = 1
        var filter = FusionFilter(configuration: configuration)
        filter.update(gnss: fix(east: 0, north: 0), at: 0)
        for second in 1...seconds {
            for k in 1...100 {
                filter.propagate(sample(Double(second - 1) + Double(k) / 100, ax: accelerationBias))
            }
            filter.update(gnss: fix(east: 10 * Double(second), north: 0), at: Double(second))
            filter.applyVehicleConstraint()
        }
        return filter
    }

    /// Dead reckoning of a constant-velocity run with an uncompensated accelerometer bias δ: the strapdown step is
    /// exact for constant acceleration, so after t seconds the position is v·t + δ·t²/2 — 100.5 m for
    /// 10 m/s, δ = 0.01 m/s², t = 10 s. Any error in the integration or the axes' signs moves it by centimetres.
    @Test func deadReckoningMatchesTheClosedForm() throws {
        var filter = FusionFilter()
        filter.update(gnss: Self.fix(east: 0, north: 0), at: 0)
        #expect(filter.isAligned, "10 m/s with course 90° sets the yaw to east")
        for k in 1...1000 { filter.propagate(Self.sample(Double(k) / 100, ax: 0.01)) }
        let estimate = try #require(filter.estimate)
        #expect(abs(estimate.east - 100.5) < 1e-6)
        #expect(abs(estimate.north) < 1e-6)
        #expect(abs(estimate.speed - 10.1) < 1e-9)
        #expect(abs(estimate.course - 90) < 1e-6)
    }

    /// A yaw rate turns the velocity: 0.1 rad/s for 10 s at 10 m/s with the centripetal force a real turn gives
    /// (v·ω to the left) ends on the circle of radius 100 m: at (100 sin 1, 100 (1 − cos 1)) = (84.15, 45.97) m.
    @Test func aTurnFollowsTheCircle() throws {
        var filter = FusionFilter()
        filter.update(gnss: Self.fix(east: 0, north: 0), at: 0)
        for k in 1...1000 { filter.propagate(Self.sample(Double(k) / 100, ay: 1, wz: 0.1)) }
        let estimate = try #require(filter.estimate)
        // First-order integration at 100 Hz: the heading used for each step lags by one step (0.001 rad), which
        // moves the end by about v · t · 0.0005 ≈ 0.05 m; 0.2 m allows for it.
        #expect(abs(estimate.east - 100 * sin(1.0)) < 0.2)
        #expect(abs(estimate.north - 100 * (1 - cos(1.0))) < 0.2)
    }

    /// Through an outage the reported accuracy never shrinks: with no measurement at all (the vehicle constraint is
    /// one, and may rightly shrink it a little) nothing can make the filter surer.
    @Test func accuracyGrowsMonotonicallyThroughAnOutage() throws {
        var filter = Self.converged()
        var previous = try #require(filter.estimate).horizontalAccuracy
        let start = try #require(filter.time)
        var grew = 0
        for k in 1...3000 {
            filter.propagate(Self.sample(start + Double(k) / 100))
            let now = try #require(filter.estimate).horizontalAccuracy
            #expect(now >= previous - 1e-9)
            if now > previous { grew += 1 }
            previous = now
        }
        #expect(grew > 2900, "it grows, not merely stays")
    }

    /// A 200 m multipath jump is outside any plausible innovation (σ ≈ a few metres): rejected, the estimate does not
    /// move, and the next good fix is accepted.
    @Test func aMultipathJumpIsRejected() throws {
        var filter = Self.converged()
        let before = try #require(filter.estimate)
        let outcome = filter.update(gnss: Self.fix(east: 600, north: 200), at: 60)
        guard case .rejected(let distance) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(distance > 100)
        let after = try #require(filter.estimate)
        #expect(hypot(after.east - before.east, after.north - before.north) < 1e-9)
        for k in 1...100 { filter.propagate(Self.sample(60 + Double(k) / 100)) }
        let good = filter.update(gnss: Self.fix(east: 610, north: 0), at: 61)
        #expect(good == .accepted)
    }

    /// Fixes that stay away are believed after `rejectionsBeforeReset` in a row: a gate must not lock a wrong
    /// filter out forever.
    @Test func aPersistentShiftRestartsTheFilter() throws {
        var filter = Self.converged()
        var outcomes: [FusionFilter.Outcome] = []
        for second in 61...66 {
            for k in 1...100 { filter.propagate(Self.sample(Double(second - 1) + Double(k) / 100)) }
            outcomes.append(filter.update(gnss: Self.fix(east: 10 * Double(second), north: 300), at: Double(second)))
        }
        #expect(outcomes.prefix(4).allSatisfy { if case .rejected = $0 { true } else { false } })
        #expect(outcomes[4] == .initialised)
        #expect(abs(try #require(filter.estimate).north - 300) < 1e-6)
    }

    /// The accelerometer's turn-on bias (0.05 m/s² along x, unknown at the start) is learnt from the GNSS velocity
    /// while driving; through a 30 s outage the estimate drifts, and when GNSS returns it moves by no more than the
    /// two estimates' uncertainties combined (the sum of the two 68 % radii).
    @Test func learnsTheBiasAndConvergesWithoutAJumpWhenGNSSReturns() throws {
        var filter = Self.converged(seconds: 120, accelerationBias: 0.05)
        #expect(abs(filter.biases.accelerationX - 0.05) < 0.01)
        let start = try #require(filter.time)
        for k in 1...3000 { filter.propagate(Self.sample(start + Double(k) / 100, ax: 0.05)) }
        let before = try #require(filter.estimate)
        let trueEast = 10 * (start + 30)
        #expect(abs(before.east - trueEast) < before.horizontalAccuracy * 3)
        let fix = Self.fix(east: trueEast, north: 0)
        let returned = filter.update(gnss: fix, at: start + 30)
        #expect(returned == .accepted)
        let after = try #require(filter.estimate)
        let jump = hypot(after.east - before.east, after.north - before.north)
        #expect(jump <= before.horizontalAccuracy + fix.horizontalAccuracy)
        #expect(abs(after.east - trueEast) <= abs(before.east - trueEast) + 1e-9)
    }

    /// A receiver's error wanders slowly (decision 0095: 95 % of its σ correlated over 30 s), so five minutes of
    /// fixes with a 5 m accuracy cannot make the filter sure to 1 m, as 300 independent fixes would (5 / √300 ≈
    /// 0.3 m): the reported accuracy stays above half the fixes' (the correlated part alone gives ≈ 0.6 of it).
    @Test func manyFixesDoNotMakeItOverconfident() throws {
        var filter = FusionFilter()
        filter.update(gnss: Self.fix(east: 0, north: 0), at: 0)
        for second in 1...300 {
            for k in 1...100 { filter.propagate(Self.sample(Double(second - 1) + Double(k) / 100)) }
            filter.update(gnss: Self.fix(east: 10 * Double(second), north: 0), at: Double(second))
        }
        let estimate = try #require(filter.estimate)
        #expect(estimate.horizontalAccuracy > 2.5)
        #expect(estimate.horizontalAccuracy < 5)
    }

    /// Standing still, the course says nothing of the yaw; a compass does: heading 0° (north) is yaw +90° (the
    /// filter's yaw is counter-clockwise from east). A later heading 90° away is beyond the 1-D gate (σ 5°:
    /// (90/5)² = 324 > 10.83) and rejected; one 3° away is accepted and moves the yaw towards it.
    @Test func aCompassAlignsAndIsGated() throws {
        var filter = FusionFilter()
        filter.update(gnss: Self.fix(east: 0, north: 0, speed: 0), at: 0)
        #expect(!filter.isAligned)
        #expect(filter.update(heading: 0, accuracy: 5, at: 0) == .initialised)
        #expect(filter.isAligned)
        #expect(abs(filter.yaw.value - .pi / 2) < 1e-12)
        #expect(abs(filter.yaw.sigma - 5 * .pi / 180) < 1e-12)
        let far = filter.update(heading: 90, accuracy: 5, at: 0.01)
        guard case .rejected = far else {
            Issue.record("expected a rejection, got \(far)")
            return
        }
        #expect(filter.update(heading: 3, accuracy: 5, at: 0.02) == .accepted)
        // Two equal-σ measurements average: the yaw moves half-way, to 1.5° clockwise of north.
        #expect(abs(filter.yaw.value - (90 - 1.5) * .pi / 180) < 1e-9)
    }

    /// Fixes a receiver cannot mean (no accuracy, NaN, outside the globe) neither start nor move the filter.
    @Test func meaninglessFixesAreIgnored() throws {
        var filter = FusionFilter()
        var bad = Self.fix(east: 0, north: 0)
        bad.horizontalAccuracy = -1
        #expect(filter.update(gnss: bad, at: 0) == .ignored)
        bad = Self.fix(east: 0, north: 0)
        bad.latitude = .nan
        #expect(filter.update(gnss: bad, at: 0) == .ignored)
        bad = Self.fix(east: 0, north: 0)
        bad.longitude = 200
        #expect(filter.update(gnss: bad, at: 0) == .ignored)
        #expect(!filter.isInitialised)
        #expect(filter.estimate == nil)
    }

    /// Samples a real IMU cannot give (NaN, saturated, out of order) change nothing.
    @Test func implausibleSamplesAreIgnored() throws {
        var filter = Self.converged(seconds: 5)
        let before = try #require(filter.estimate)
        let used = [
            filter.propagate(Self.sample(5.01, ax: .nan)), filter.propagate(Self.sample(5.01, ax: 400)),
            filter.propagate(Self.sample(5.01, wz: 100)), filter.propagate(Self.sample(4.0)),
        ]
        #expect(used == [false, false, false, false])
        #expect(try #require(filter.estimate) == before)
    }

    /// horizontalAccuracy is the 68 % circle: √(−2 ln 0.32) σ for a circular error, 0.9945 σ (the 1-D 68 % half
    /// width) when one axis has no error, and for ellipses the Monte-Carlo radius (2·10⁶ draws: ±0.002 at 1 σ).
    @Test(arguments: [
        (4.0, 4.0, 2 * 1.509_596), (1.0, 0.0, 0.994_458), (4.0, 1.0, 2.297), (9.0, 0.09, 2.9986),
    ])
    func radius68(ee: Double, nn: Double, expected: Double) {
        #expect(abs(horizontalRadius68(ee: ee, en: 0, nn: nn) - expected) < 0.006)
    }

    /// Rotating the ellipse does not change the radius.
    @Test func radius68IgnoresOrientation() {
        let a = 0.6
        let (l1, l2) = (4.0, 1.0)
        let ee = l1 * cos(a) * cos(a) + l2 * sin(a) * sin(a)
        let nn = l1 * sin(a) * sin(a) + l2 * cos(a) * cos(a)
        let en = (l1 - l2) * sin(a) * cos(a)
        #expect(abs(horizontalRadius68(ee: ee, en: en, nn: nn) - horizontalRadius68(ee: 4, en: 0, nn: 1)) < 1e-6)
    }
}

import Foundation

/// Seeded synthetic IMU and GNSS data made from a recorded track's own motion, for tests and `Benchmarks/fusion`
/// (decision 0095). The same points and seed give the same samples, bit for bit.
///
/// Truth: the track's points projected on a `LocalTangentPlane`, linearly resampled at 1 s, smoothed by three
/// passes of a 5 s centred moving average (the recorded points carry their receiver's noise; a vehicle's
/// acceleration does not), and joined by a natural cubic spline per axis, so position, velocity and
/// acceleration are continuous at `rate` Hz. The body's yaw follows the course while the speed is above
/// 0.5 m/s, turning at most 90 °/s, and is held below it (a standing vehicle does not turn).
///
/// IMU (mounted level, x forward): specific force R(−yaw)·a + (0, 0, g) and yaw rate, plus, per axis, a turn-on
/// bias, a bias random walk, a Gauss–Markov bias instability and white noise σ = density / √dt (the
/// continuous-to-discrete rule of Kalibr's IMU noise model). `IMUErrorModel.bmi160` gives the figures.
public struct InertialSynthesizer: Sendable {
    public struct TruthSample: Sendable, Hashable {
        public var time: Double
        public var east: Double
        public var north: Double
        public var velocityEast: Double
        public var velocityNorth: Double
        /// Radians counter-clockwise from east.
        public var yaw: Double
        public var speed: Double { (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot() }
    }

    public let plane: LocalTangentPlane
    public let truth: [TruthSample]
    public let rate: Double

    /// `points` are (seconds, latitude, longitude) in time order; nil for fewer than 3 points or less than 3 s.
    public init?(points: [(time: Double, latitude: Double, longitude: Double)], rate: Double = 100) {
        guard points.count >= 3, let first = points.first, let last = points.last, last.time - first.time >= 3,
            rate > 0
        else { return nil }
        let plane = LocalTangentPlane(latitude: first.latitude, longitude: first.longitude)
        self.plane = plane
        self.rate = rate
        let projected = points.map { point in
            (point.time, plane.project(latitude: point.latitude, longitude: point.longitude))
        }
        // 1 s knots by linear interpolation.
        let start = first.time.rounded(.up)
        let count = Int((last.time - start).rounded(.down)) + 1
        var east = [Double](repeating: 0, count: count)
        var north = [Double](repeating: 0, count: count)
        var j = 0
        for k in 0..<count {
            let t = start + Double(k)
            while j + 1 < projected.count - 1, projected[j + 1].0 <= t { j += 1 }
            let (t0, a) = projected[j]
            let (t1, b) = projected[j + 1]
            let w = t1 > t0 ? min(max((t - t0) / (t1 - t0), 0), 1) : 0
            east[k] = a.east + w * (b.east - a.east)
            north[k] = a.north + w * (b.north - a.north)
        }
        for _ in 0..<3 {
            east = Self.movingAverage(east, halfWidth: 2)
            north = Self.movingAverage(north, halfWidth: 2)
        }
        let se = Self.splineSecondDerivatives(east)
        let sn = Self.splineSecondDerivatives(north)
        let dt = 1 / rate
        let total = Int((Double(count - 1) * rate).rounded(.down)) + 1
        var samples: [TruthSample] = []
        samples.reserveCapacity(total)
        var yaw: Double?
        let maxTurn = Double.pi / 2 * dt
        for k in 0..<total {
            let u = Double(k) * dt
            let (pe, ve) = Self.spline(east, se, at: u)
            let (pn, vn) = Self.spline(north, sn, at: u)
            let speed = (ve * ve + vn * vn).squareRoot()
            let course = atan2(vn, ve)
            if let held = yaw {
                if speed > 0.5 { yaw = held + min(max(FusionFilter.wrap(course - held), -maxTurn), maxTurn) }
            } else if speed > 0.5 {
                yaw = course
            }
            samples.append(
                TruthSample(time: start + u, east: pe, north: pn, velocityEast: ve, velocityNorth: vn, yaw: yaw ?? 0))
        }
        // Before the first motion the yaw is the first course it will have.
        if let firstMoving = samples.firstIndex(where: { $0.speed > 0.5 }) {
            for k in 0..<firstMoving { samples[k].yaw = samples[firstMoving].yaw }
        }
        truth = samples
    }

    /// The IMU's samples along `truth`, with the errors of `model`, seeded.
    public func inertialSamples(model: IMUErrorModel = .bmi160, seed: UInt64) -> [InertialSample] {
        var random = ScenarioRandom(seed: seed)
        let dt = 1 / rate
        let g = 9.806_65
        var accelBias = (0..<3).map { _ in model.accelerationTurnOnBias * random.gaussian() }
        var rateBias = (0..<3).map { _ in model.rotationTurnOnBias * random.gaussian() }
        var accelGM = [0.0, 0, 0]
        var rateGM = [0.0, 0, 0]
        let phi = exp(-dt / model.biasInstabilityCorrelation)
        let drive = (1 - phi * phi).squareRoot()
        let accelWhite = model.accelerationNoiseDensity / dt.squareRoot()
        let rateWhite = model.rotationNoiseDensity / dt.squareRoot()
        var out: [InertialSample] = []
        out.reserveCapacity(truth.count)
        for k in truth.indices {
            let s = truth[k]
            // Acceleration by central differences of the spline's velocity (exact for its piecewise-quadratic velocity
            // away from knots), and the yaw rate by the backward difference the filter's integration undoes.
            let a = truth[max(k - 1, 0)]
            let b = truth[min(k + 1, truth.count - 1)]
            let span = b.time - a.time
            let aE = span > 0 ? (b.velocityEast - a.velocityEast) / span : 0
            let aN = span > 0 ? (b.velocityNorth - a.velocityNorth) / span : 0
            let yawRate = k > 0 ? FusionFilter.wrap(s.yaw - truth[k - 1].yaw) / dt : 0
            let c = cos(s.yaw)
            let sn = sin(s.yaw)
            let ideal = [c * aE + sn * aN, -sn * aE + c * aN, g]
            let idealRate = [0.0, 0, yawRate]
            var f = [0.0, 0, 0]
            var w = [0.0, 0, 0]
            for axis in 0..<3 {
                accelBias[axis] += model.accelerationBiasWalk * dt.squareRoot() * random.gaussian()
                rateBias[axis] += model.rotationBiasWalk * dt.squareRoot() * random.gaussian()
                accelGM[axis] = phi * accelGM[axis] + drive * model.accelerationBiasInstability * random.gaussian()
                rateGM[axis] = phi * rateGM[axis] + drive * model.rotationBiasInstability * random.gaussian()
                f[axis] = ideal[axis] + accelBias[axis] + accelGM[axis] + accelWhite * random.gaussian()
                w[axis] = idealRate[axis] + rateBias[axis] + rateGM[axis] + rateWhite * random.gaussian()
            }
            out.append(
                InertialSample(
                    time: s.time, accelerationX: f[0], accelerationY: f[1], accelerationZ: f[2],
                    rotationRateX: w[0], rotationRateY: w[1], rotationRateZ: w[2]))
        }
        return out
    }

    /// GNSS fixes every `interval` s along `truth`, with the errors of `model`, seeded; each with its index in
    /// `truth`. Time-correlated position error (Gauss–Markov per axis) plus white; white velocity error; the
    /// accuracies reported are the model's own σ (an honest receiver).
    public func gnssFixes(
        model: GNSSErrorModel = .phone, interval: Double = 1, seed: UInt64
    ) -> [(index: Int, fix: Fix)] {
        var random = ScenarioRandom(seed: seed)
        let step = max(Int((interval * rate).rounded()), 1)
        let phi = exp(-interval / model.positionCorrelation)
        let drive = (1 - phi * phi).squareRoot()
        var errE = model.positionCorrelated * random.gaussian()
        var errN = model.positionCorrelated * random.gaussian()
        let sigma = (model.positionCorrelated * model.positionCorrelated + model.positionWhite * model.positionWhite)
            .squareRoot()
        var out: [(Int, Fix)] = []
        for k in stride(from: 0, to: truth.count, by: step) {
            let s = truth[k]
            errE = phi * errE + drive * model.positionCorrelated * random.gaussian()
            errN = phi * errN + drive * model.positionCorrelated * random.gaussian()
            let e = s.east + errE + model.positionWhite * random.gaussian()
            let n = s.north + errN + model.positionWhite * random.gaussian()
            let ve = s.velocityEast + model.velocity * random.gaussian()
            let vn = s.velocityNorth + model.velocity * random.gaussian()
            let speed = (ve * ve + vn * vn).squareRoot()
            var course = -1.0
            var courseAccuracy = -1.0
            if speed > 2 * model.velocity {
                course = atan2(ve, vn) * 180 / .pi
                if course < 0 { course += 360 }
                courseAccuracy = min(model.velocity / speed * 180 / .pi, 180)
            }
            let (lat, lon) = plane.unproject(east: e, north: n)
            let fix = Fix(
                latitude: lat, longitude: lon, horizontalAccuracy: FusionFilter.circular68 * sigma, course: course,
                courseAccuracy: courseAccuracy, speed: speed, speedAccuracy: model.velocity,
                timestamp: Date(timeIntervalSince1970: s.time))
            out.append((k, fix))
        }
        return out
    }

    static func movingAverage(_ values: [Double], halfWidth: Int) -> [Double] {
        values.indices.map { k in
            let lo = max(k - halfWidth, 0)
            let hi = min(k + halfWidth, values.count - 1)
            return values[lo...hi].reduce(0, +) / Double(hi - lo + 1)
        }
    }

    /// Second derivatives of the natural cubic spline through values at unit spacing (Thomas algorithm).
    static func splineSecondDerivatives(_ y: [Double]) -> [Double] {
        let n = y.count
        var m = [Double](repeating: 0, count: n)
        guard n > 2 else { return m }
        var c = [Double](repeating: 0, count: n)
        var d = [Double](repeating: 0, count: n)
        for i in 1..<(n - 1) {
            let rhs = 6 * (y[i + 1] - 2 * y[i] + y[i - 1])
            let denom = 4 - (i > 1 ? c[i - 1] : 0)
            c[i] = 1 / denom
            d[i] = (rhs - (i > 1 ? d[i - 1] : 0)) / denom
        }
        for i in stride(from: n - 2, through: 1, by: -1) { m[i] = d[i] - c[i] * m[i + 1] }
        return m
    }

    /// Value and first derivative of the spline at u (in knot units).
    static func spline(_ y: [Double], _ m: [Double], at u: Double) -> (Double, Double) {
        let i = min(max(Int(u.rounded(.down)), 0), y.count - 2)
        let t = u - Double(i)
        let a = 1 - t
        let value = a * y[i] + t * y[i + 1] + ((a * a * a - a) * m[i] + (t * t * t - t) * m[i + 1]) / 6
        let slope = y[i + 1] - y[i] + ((1 - 3 * a * a) * m[i] + (3 * t * t - 1) * m[i + 1]) / 6
        return (value, slope)
    }
}

/// A MEMS IMU's error figures, per axis, SI units.
public struct IMUErrorModel: Sendable, Hashable {
    public var accelerationNoiseDensity: Double
    public var rotationNoiseDensity: Double
    public var accelerationTurnOnBias: Double
    public var rotationTurnOnBias: Double
    public var accelerationBiasWalk: Double
    public var rotationBiasWalk: Double
    public var accelerationBiasInstability: Double
    public var rotationBiasInstability: Double
    public var biasInstabilityCorrelation: Double

    public init(
        accelerationNoiseDensity: Double, rotationNoiseDensity: Double, accelerationTurnOnBias: Double,
        rotationTurnOnBias: Double, accelerationBiasWalk: Double, rotationBiasWalk: Double,
        accelerationBiasInstability: Double, rotationBiasInstability: Double, biasInstabilityCorrelation: Double
    ) {
        self.accelerationNoiseDensity = accelerationNoiseDensity
        self.rotationNoiseDensity = rotationNoiseDensity
        self.accelerationTurnOnBias = accelerationTurnOnBias
        self.rotationTurnOnBias = rotationTurnOnBias
        self.accelerationBiasWalk = accelerationBiasWalk
        self.rotationBiasWalk = rotationBiasWalk
        self.accelerationBiasInstability = accelerationBiasInstability
        self.rotationBiasInstability = rotationBiasInstability
        self.biasInstabilityCorrelation = biasInstabilityCorrelation
    }

    /// Bosch BMI160 (data sheet BST-BMI160-DS000-07, rev. 0.8, Feb. 2015), typical values: accelerometer output
    /// noise 180 µg/√Hz, zero-g offset ±40 mg, offset temperature drift ±1 mg/K; gyroscope output noise
    /// 0.007 °/s/√Hz, zero-rate offset ±3 °/s, offset temperature drift ±0.05 °/s/K. The turn-on biases are
    /// drawn with σ = the typical offset. The data sheet gives no Allan figures, so: bias random walk = the
    /// temperature drift over 2 K per hour (1σ after 1 h: 2 mg, 0.1 °/s); bias instability 0.1 mg and 10 °/h
    /// with a 100 s correlation — an assumption typical of published Allan deviations of consumer MEMS.
    public static let bmi160 = IMUErrorModel(
        accelerationNoiseDensity: 180e-6 * 9.806_65, rotationNoiseDensity: 0.007 * .pi / 180,
        accelerationTurnOnBias: 0.040 * 9.806_65, rotationTurnOnBias: 3 * .pi / 180,
        accelerationBiasWalk: 0.002 * 9.806_65 / 60, rotationBiasWalk: 0.1 * .pi / 180 / 60,
        accelerationBiasInstability: 1e-4 * 9.806_65, rotationBiasInstability: 10.0 / 3600 * .pi / 180,
        biasInstabilityCorrelation: 100)

    /// No errors at all, for tests of the filter's arithmetic.
    public static let perfect = IMUErrorModel(
        accelerationNoiseDensity: 0, rotationNoiseDensity: 0, accelerationTurnOnBias: 0, rotationTurnOnBias: 0,
        accelerationBiasWalk: 0, rotationBiasWalk: 0, accelerationBiasInstability: 0, rotationBiasInstability: 0,
        biasInstabilityCorrelation: 100)
}

/// A GNSS receiver's errors, metres and m/s, 1 σ per axis.
public struct GNSSErrorModel: Sendable, Hashable {
    public var positionCorrelated: Double
    public var positionCorrelation: Double
    public var positionWhite: Double
    public var velocity: Double

    public init(positionCorrelated: Double, positionCorrelation: Double, positionWhite: Double, velocity: Double) {
        self.positionCorrelated = positionCorrelated
        self.positionCorrelation = positionCorrelation
        self.positionWhite = positionWhite
        self.velocity = velocity
    }

    /// Position: Gauss–Markov 3 m per axis with a 30 s correlation plus 1 m white — the low end of what
    /// Benchmarks/noise measured on real moving recordings (3–8 m per axis, correlation 30–60 s; stationary
    /// receivers' correlation p50 27 s). Velocity: 0.2 m/s white per axis, an assumption between a u-blox M8's
    /// 0.05 m/s (data sheet, 50 %, open sky) and the 0.5–1 m/s speed accuracies phones report in towns.
    public static let phone = GNSSErrorModel(
        positionCorrelated: 3, positionCorrelation: 30, positionWhite: 1, velocity: 0.2)
}

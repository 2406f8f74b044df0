import Foundation

/// The state's dimension, for indexing the row-major covariance.
private let d = FusionFilter.n

/// GNSS + IMU (+ compass) in one extended Kalman filter, on the horizontal plane (decision 0095).
///
/// A pure value: it reads no clock and does no I/O. Feed it, in time order, `InertialSample`s (100 Hz),
/// GNSS fixes and compass headings, all stamped with one monotonic clock in seconds; read `estimate`.
///
/// Filter: a standard (total-state) EKF. The only attitude it carries is yaw, one angle with no redundant
/// parameters, so an error-state filter's multiplicative attitude error reduces to the same additive update;
/// full 3-D attitude (a quaternion) is where the error-state form pays, and is not done yet.
///
/// State x (15): east, north (m, in a `LocalTangentPlane` around the first fix), v_east, v_north (m/s),
/// yaw θ (rad, counter-clockwise from east, the body x axis), accelerometer biases b_ax, b_ay (m/s², body),
/// gyroscope bias b_gz (rad/s), and the GNSS receiver's time-correlated position error g_east, g_north (m; a
/// first-order Gauss–Markov process, so that averaging many fixes cannot shrink the position's uncertainty below
/// what the receiver's slowly wandering error allows); and the vertical channel (decision 0095, Height): height above
/// the WGS84 ellipsoid h (m), vertical velocity v_up (m/s), the barometer's bias b_baro (pressure altitude − h, m),
/// the accelerometer's z bias b_az (m/s²) and the GNSS receiver's correlated vertical error g_up (m). Level mount
/// assumed: pitch and roll are not estimated, the body z axis is taken as up (h, v_up integrate f_z − b_az − g).
/// The vertical block never couples with the horizontal one (no transition or measurement term joins them), so P
/// stays block-diagonal; it starts at the first GNSS altitude.
///
/// Process model, per sample over dt = t_k − t_{k−1} (strapdown, first order):
///   a = R(θ) (f_xy − b_a);  p += v dt + a dt²/2;  v += a dt;  θ += (ω_z − b_gz) dt;  biases constant;
///   g ← e^(−dt/τ) g.
/// Process noise: accelerometer white noise and gyroscope white noise (from `Configuration`) into v and θ,
/// bias random walks into the biases, (1 − e^(−2dt/τ)) σ_g² into g. Before the yaw is known (`isAligned` false)
/// the IMU's acceleration cannot be put in the plane, and the filter runs a constant-velocity model instead.
///
/// Measurements (each tested before use: the squared Mahalanobis distance of the innovation against the χ²
/// quantiles `gate2` and `gate1`, so a multipath jump is rejected, not averaged in):
///   GNSS position (2-D, z = p + g + white; σ per axis = horizontalAccuracy / 1.5096, the 68 % circle of a
///   circular Gaussian, split by `gnssCorrelatedFraction` between g and the white noise); GNSS velocity (2-D,
///   along-track σ = speedAccuracy, cross-track σ = speed · courseAccuracy); compass heading (yaw, σ = its
///   accuracy); and, in `vehicle` mode, the non-holonomic constraint (no sideways velocity in the body frame,
///   σ `lateralVelocityNoise`).
/// Biases are estimated by the filter itself through the cross-covariances the process model builds: an
/// accelerometer bias shows as velocity drifting from GNSS velocity, a gyro bias as yaw drifting from the
/// course (observable while moving) or from the compass.
public struct FusionFilter: Sendable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Accelerometer white noise density, m/s²/√Hz (BMI160: 180 µg/√Hz).
        public var accelerationNoiseDensity = 180e-6 * 9.806_65
        /// Extra white acceleration noise, m/s²/√Hz, for what the planar model leaves out (road grade and
        /// tilt, vibration, timing).
        public var accelerationModelNoise = 0.02
        /// Gyroscope white noise density, rad/s/√Hz (BMI160: 0.007 °/s/√Hz).
        public var rotationNoiseDensity = 0.007 * Double.pi / 180
        /// Bias random walks, per √s (decision 0095: BMI160 temperature coefficients over 2 K per hour).
        public var accelerationBiasWalk = 3.3e-4
        public var rotationBiasWalk = 0.001_67 * Double.pi / 180
        /// Initial bias uncertainty, 1 σ (BMI160 typical zero-g offset 40 mg, zero-rate offset 3 °/s).
        public var initialAccelerationBias = 0.04 * 9.806_65
        public var initialRotationBias = 3 * Double.pi / 180
        /// Constant-velocity model's acceleration noise before alignment, m/s²/√Hz.
        public var unalignedAccelerationNoise = 1.0
        /// GNSS speed, m/s, above which its course sets the yaw when nothing else has.
        public var alignmentSpeed = 1.5
        /// Scales the GNSS position σ the receiver reports (1: believe it).
        public var positionNoiseScale = 1.0
        /// The share of a fix's σ that is correlated over `gnssErrorCorrelation` seconds (estimated as states 8, 9):
        /// Benchmarks/noise measured moving receivers' errors as 3–8 m Gauss–Markov with 30–60 s correlation, white
        /// noise being the smaller part; 0.95 is 3 m correlated beside 1 m white.
        public var gnssCorrelatedFraction = 0.95
        public var gnssErrorCorrelation = 30.0
        /// Floor on the GNSS velocity σ per axis, m/s.
        public var minimumVelocityNoise = 0.05
        /// χ² gate for a 2-D innovation (13.82: 99.9 %) and a 1-D one (10.83: 99.9 %).
        public var gate2 = 13.82
        public var gate1 = 10.83
        /// After this many GNSS positions in a row are rejected, the fixes are believed and the filter restarts
        /// from them: a gate can only protect a filter that is right.
        public var rejectionsBeforeReset = 5
        /// A vehicle does not slide sideways: apply the non-holonomic constraint above `vehicleConstraintSpeed`.
        public var vehicle = true
        public var lateralVelocityNoise = 0.3
        public var vehicleConstraintSpeed = 2.0
        /// A gap between IMU samples longer than this, s, is bridged by the constant-velocity model.
        public var maximumSampleGap = 0.2
        /// The tangent plane's origin moves to the estimate when it is farther than this, m.
        public var originRadius = 10_000.0

        // The vertical channel (decision 0095, Height): states 10–14.
        /// Extra white vertical acceleration noise, m/s²/√Hz, for what a level mount leaves out (the vehicle
        /// pitching on a grade tilts gravity into the horizontal axes: 0.05 m/s² at 6°; vibration).
        public var verticalAccelerationModelNoise = 0.05
        /// σ, metres, of one barometric (pressure) altitude: `AltitudeFilter.Parameters.pressureNoise`'s default
        /// (≈ 0.03 hPa); the engine passes its altitude filter's value.
        public var pressureNoise = 0.3
        /// Random walk of the barometer's bias (pressure altitude − HAE: the weather and the sensor), m/√s:
        /// √(`AltitudeFilter.Parameters.offsetNoise` 10⁻⁴ m²/s).
        public var barometerBiasWalk = 0.01
        /// σ, metres, of the barometer's bias before it is learnt: the sea-level pressure's spread
        /// (`AltitudeFilter.Parameters.uncalibratedOffsetSigma`) plus the geoid (up to 100 m).
        public var initialBarometerBias = 300.0
        /// σ, m/s, of the vertical velocity when the height starts.
        public var initialVerticalVelocity = 1.0

        public init() {}
    }

    public struct Estimate: Sendable, Hashable {
        public var time: Double
        public var latitude: Double
        public var longitude: Double
        public var east: Double
        public var north: Double
        /// Radius of the 68 % circle, m (`horizontalRadius68` of the position covariance).
        public var horizontalAccuracy: Double
        /// m/s; speedAccuracy is 1 σ along the velocity.
        public var speed: Double
        public var speedAccuracy: Double
        /// Degrees clockwise from true north, −1 when the speed is below 2 σ of its uncertainty (no direction);
        /// courseAccuracy is 1 σ across the velocity divided by the speed, degrees, −1 likewise.
        public var course: Double
        public var courseAccuracy: Double
        /// Whether the IMU is being used (the yaw is known); otherwise a constant-velocity filter of GNSS.
        public var isInertial: Bool
        /// Seconds since the last GNSS position was accepted.
        public var sinceGNSS: Double
        /// Height above the WGS84 ellipsoid, m, and its 1 σ (Apple's `verticalAccuracy` is 1 σ, as the altitude
        /// filter reports it); nil before the first GNSS altitude.
        public var height: Double?
        public var verticalAccuracy: Double
        /// m/s, up.
        public var verticalSpeed: Double
    }

    /// What happened to a measurement.
    public enum Outcome: Sendable, Hashable {
        case accepted
        /// The innovation's squared Mahalanobis distance was beyond the gate.
        case rejected(distanceSquared: Double)
        /// The filter started (or restarted) from this measurement.
        case initialised
        /// Not usable (invalid accuracy, not finite, no yaw yet for a constraint).
        case ignored
    }

    static let n = 15
    public var configuration: Configuration
    public internal(set) var plane: LocalTangentPlane?
    /// x and P (row-major 8 × 8).
    var x = [Double](repeating: 0, count: d)
    var p = [Double](repeating: 0, count: d * d)
    public internal(set) var time: Double?
    public internal(set) var isAligned = false
    public internal(set) var lastGNSSTime: Double?
    var consecutiveRejections = 0
    /// σ of the GNSS error's correlated part, from the last fix, m (drives states 8, 9's process noise).
    var correlatedSigma = 0.0
    /// The vertical channel (states 10–14) has started: a GNSS altitude has given the height.
    public internal(set) var hasHeight = false
    /// σ of the GNSS vertical error's correlated part, from the last fix with an altitude, m (state 14's noise).
    var verticalCorrelatedSigma = 0.0
    var consecutiveHeightRejections = 0
    var consecutivePressureRejections = 0
    /// What happened to the last GNSS altitude and the last pressure altitude (for tests and diagnostics).
    public internal(set) var lastHeightOutcome: Outcome?
    public internal(set) var lastPressureOutcome: Outcome?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var isInitialised: Bool { plane != nil }
    /// The estimated biases: accelerometer x, y (m/s²) and gyroscope z (rad/s).
    public var biases: (accelerationX: Double, accelerationY: Double, rotationZ: Double) { (x[5], x[6], x[7]) }
    /// Yaw, radians counter-clockwise from east, and its 1 σ.
    public var yaw: (value: Double, sigma: Double) { (x[4], p[4 * d + 4].squareRoot()) }
    /// The barometer's bias (pressure altitude − height above the ellipsoid), m, and its 1 σ; the accelerometer's z
    /// bias, m/s².
    public var verticalBiases: (barometer: Double, barometerSigma: Double, accelerationZ: Double) {
        (x[12], p[12 * d + 12].squareRoot(), x[13])
    }

    /// Normal gravity, m/s², on the WGS84 ellipsoid at `latitude` degrees (Somigliana, in the series form) less the
    /// free-air gradient 3.086·10⁻⁶ s⁻² × height: what a level accelerometer at rest reads on its z axis, to the
    /// local anomaly (≤ 10⁻³ m/s², which the z bias state absorbs).
    public static func normalGravity(latitude: Double, height: Double) -> Double {
        let s = sin(latitude * .pi / 180)
        let s2 = sin(2 * latitude * .pi / 180)
        return 9.780_327 * (1 + 0.005_302_4 * s * s - 0.000_005_8 * s2 * s2) - 3.086e-6 * height
    }
}

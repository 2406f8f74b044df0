import Foundation

/// One sample of a 6-axis inertial measurement unit (accelerometer and gyroscope read together), in the
/// sensor's body frame: x forward, y left, z up (right-handed; the IIO `mount_matrix` maps the chip's axes to
/// these before a sample is made).
///
/// `time` is seconds on the sensor's monotonic clock, the same clock the filter's GNSS, compass and
/// barometer inputs are stamped with (the engine never reads a clock itself).
public struct InertialSample: Sendable, Hashable, Codable {
    /// Seconds, monotonic.
    public var time: Double
    /// Specific force (acceleration minus gravity, as an accelerometer reads it), m/s², body frame.
    /// At rest and level it is (0, 0, +9.81).
    public var accelerationX: Double
    public var accelerationY: Double
    public var accelerationZ: Double
    /// Angular rate, rad/s, body frame, counter-clockwise positive about each axis.
    public var rotationRateX: Double
    public var rotationRateY: Double
    public var rotationRateZ: Double
    /// A compass reading of the body's heading (its x axis) taken with this sample, if any: the runtime attaches
    /// one to the first sample at or after the compass was read (decision 0095, Compass).
    public var heading: BodyHeading?

    /// The heading of the body's x axis as a compass gives it.
    public struct BodyHeading: Sendable, Hashable, Codable {
        /// Degrees clockwise from north, [0, 360).
        public var degrees: Double
        /// 1 σ, degrees; not positive or not finite: unknown (an uncalibrated magnetometer), not used.
        public var accuracy: Double
        /// True for a heading from true north (a GNSS compass); false for a magnetometer's, from magnetic north,
        /// to which the filter adds the WMM2025 declination at its position.
        public var isTrue: Bool

        public init(degrees: Double, accuracy: Double, isTrue: Bool) {
            self.degrees = degrees
            self.accuracy = accuracy
            self.isTrue = isTrue
        }
    }

    public init(
        time: Double, accelerationX: Double, accelerationY: Double, accelerationZ: Double,
        rotationRateX: Double, rotationRateY: Double, rotationRateZ: Double, heading: BodyHeading? = nil
    ) {
        self.heading = heading
        self.time = time
        self.accelerationX = accelerationX
        self.accelerationY = accelerationY
        self.accelerationZ = accelerationZ
        self.rotationRateX = rotationRateX
        self.rotationRateY = rotationRateY
        self.rotationRateZ = rotationRateZ
    }

    /// Bounds a real sample lies within: every value finite, the specific force within ±16 g and the rate within
    /// ±2000 °/s (the widest full-scale ranges of the BMI160, BMI270, MPU-9250, LSM6DSx and ICM-20948, so anything
    /// beyond is a saturated or corrupt read, not motion).
    public var isPlausible: Bool {
        let accelerations = [accelerationX, accelerationY, accelerationZ]
        let rates = [rotationRateX, rotationRateY, rotationRateZ]
        guard time.isFinite, accelerations.allSatisfy(\.isFinite), rates.allSatisfy(\.isFinite) else { return false }
        return accelerations.allSatisfy { abs($0) < 16 * 9.806_65 } && rates.allSatisfy { abs($0) < 2000 * .pi / 180 }
    }
}

import CoreLocationEngine

/// What an inertial source tells its owner.
public enum InertialSourceEvent: Sendable, Hashable {
    /// Accelerometer and gyroscope samples, in time order, each stamped on the owner's `Scheduler` timeline
    /// (monotonic seconds, the clock the engine's fixes are stamped with): a buffered device delivers a batch per
    /// read, a polled one a single sample.
    case samples([InertialSample])
    /// The source cannot currently read its sensors (device gone, unreadable, frozen); the reason is for logs.
    case unavailable(reason: String)
}

/// Anything that produces 6-axis inertial samples for the fusion filter (decision 0095): an IIO accelerometer and
/// gyroscope, a replayed `.imu.csv` recording, a test double.
///
/// Implementations power their sensors only between `start` and `stop`, deliver events on any thread, never after
/// `stop()` has returned, and tolerate `start` after `stop`.
public protocol InertialSource: AnyObject, Sendable {
    /// A short name for logs and `locationctl sources`, e.g. "iio:device0 (bmi160)".
    var name: String { get }
    /// Whether samples are made up or replayed by software.
    var isSimulated: Bool { get }
    /// The nominal sampling rate, Hz.
    var sampleRate: Double { get }
    func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void)
    func stop()
}

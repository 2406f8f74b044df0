import Foundation
import CoreLocationEngine
import Logging
import Synchronization

/// Magnetometer samples from a Linux IIO magnetometer, tilt-compensated with an IIO accelerometer when
/// the system has one, polled on a scheduler.
///
/// Mounting: each device's mounting matrix (`IIOMountMatrix`: `in_magn_mount_matrix` /
/// `in_accel_mount_matrix`, else `in_mount_matrix`, else `mount_matrix`) is read once at start and
/// applied to every sample, so both vectors are in the main hardware's frame before calibration and
/// tilt compensation; a chip mounted rotated on the board then gives the heading of the device.
///
/// Calibration: a stored one (`MagnetometerCalibrationStore`, keyed by driver and device) is applied
/// from the start; meanwhile the raw readings are collected (up to `calibrationWindow`) and refitted
/// every `refitEvery` samples; a fit that succeeds with a better accuracy than the current one is
/// adopted and saved. Uncalibrated samples carry accuracy −1 (Core Location's "invalid"), which asks
/// the user to calibrate by turning the device in a figure of eight.
///
/// Failures: a device whose files vanish or stop holding numbers is reported `.unavailable` on every
/// poll until it returns; the heading engine turns that, a stuck reading or a saturated one into
/// `kCLErrorHeadingFailure`.
public final class IIOHeadingSource: HeadingSource {
    public let magnetometer: IIODevice
    public let accelerometer: IIODevice?
    public let interval: Double
    /// The magnetometer's mounting matrix (identity without one).
    public let magnetometerMount: IIOMountMatrix
    /// The accelerometer's mounting matrix (identity without one or without an accelerometer).
    public let accelerometerMount: IIOMountMatrix
    public var name: String { "\(magnetometer.deviceName) (\(magnetometer.name))" }
    public var isSimulated: Bool { false }
    public static let calibrationWindow = 400
    public static let refitEvery = 50

    private struct State {
        var calibration: MagnetometerCalibration?
        var collected: [DeviceVector] = []
        var lastProblem: String?
    }

    private let scheduler: any Scheduler
    private let store: MagnetometerCalibrationStore?
    private let logger: Logger
    private let state: Mutex<State>
    private let sampling: SamplingLoop<HeadingSourceEvent>

    /// - Parameters:
    ///   - magnetometer: the device to read; `IIODevice.devices(withChannel: "magn", sysfsRoot:)` finds them.
    ///   - accelerometer: for tilt compensation; nil means the device is assumed flat, face up.
    ///   - interval: seconds between polls (default 0.1 s, 10 Hz).
    ///   - store: where calibrations persist; nil keeps them in memory only.
    public init(
        magnetometer: IIODevice, accelerometer: IIODevice?, interval: Double = 0.1,
        scheduler: any Scheduler, store: MagnetometerCalibrationStore?,
        logger: Logger = Logger(label: "corelocation.magnetometer")
    ) {
        self.magnetometer = magnetometer
        self.accelerometer = accelerometer
        self.interval = interval.isFinite && interval > 0 ? interval : 0.1
        sampling = SamplingLoop(scheduler: scheduler, interval: self.interval)
        self.scheduler = scheduler
        self.store = store
        self.logger = logger
        let magnetometerMount = magnetometer.mountMatrix(for: "magn")
        let accelerometerMount = accelerometer?.mountMatrix(for: "accel") ?? (.identity, nil)
        for problem in [magnetometerMount.problem, accelerometerMount.problem].compactMap({ $0 }) {
            logger.warning("Mounting matrix ignored", metadata: ["problem": "\(problem)"])
        }
        self.magnetometerMount = magnetometerMount.matrix
        self.accelerometerMount = accelerometerMount.matrix
        self.state = Mutex(State(calibration: store?.load(key: Self.key(magnetometer))))
    }

    /// The first magnetometer under a sysfs root, with the first accelerometer (or nil without one).
    public static func discover(
        sysfsRoot: String = "/sys", scheduler: any Scheduler,
        store: MagnetometerCalibrationStore?
    ) -> IIOHeadingSource? {
        guard let magnetometer = IIODevice.devices(withChannel: "magn", sysfsRoot: sysfsRoot).first else { return nil }
        let accelerometer = IIODevice.devices(withChannel: "accel", sysfsRoot: sysfsRoot).first
        return IIOHeadingSource(
            magnetometer: magnetometer, accelerometer: accelerometer, scheduler: scheduler,
            store: store)
    }

    static func key(_ device: IIODevice) -> String { "\(device.name)-\(device.deviceName)" }

    public var calibration: MagnetometerCalibration? { state.withLock { $0.calibration } }

    public func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        sampling.start(handler) { [weak self] in self?.readEvent() }
    }

    public func stop() { sampling.stop() }

    /// One reading, calibrated, as an event (for tests and for the poll loop).
    func readEvent() -> HeadingSourceEvent {
        let magnetic: IIODevice.Reading
        do {
            magnetic = try magnetometer.read("magn")
        } catch {
            // Logged once per problem, not on every poll.
            let isNew = state.withLock { state in
                defer { state.lastProblem = error.message }
                return state.lastProblem != error.message
            }
            if isNew { logger.warning("Magnetometer unreadable", metadata: ["error": "\(error)"]) }
            return .unavailable(reason: error.message)
        }
        state.withLock { $0.lastProblem = nil }
        // IIO magnetometers report Gauss; 1 G = 100 µT.
        // In the main hardware's frame (the chip's own axes may be rotated on the board).
        let raw = magnetometerMount.apply(100 * magnetic.value)
        let gravity = accelerometer.flatMap { try? $0.read("accel").value }.map { accelerometerMount.apply($0) }
        let calibration = learn(raw)
        return .sample(
            HeadingSample(
                field: calibration?.apply(raw) ?? raw, raw: raw, gravity: gravity,
                accuracy: calibration?.headingAccuracy ?? -1, isSaturated: magnetic.isSaturated,
                timestamp: scheduler.wallNow
            ))
    }

    /// Collects the raw sample and refits when due; returns the calibration to apply.
    private func learn(_ raw: DeviceVector) -> MagnetometerCalibration? {
        let (samples, current) = state.withLock { state -> ([DeviceVector]?, MagnetometerCalibration?) in
            state.collected.append(raw)
            if state.collected.count > Self.calibrationWindow { state.collected.removeFirst() }
            let due = state.collected.count >= 12 && state.collected.count % Self.refitEvery == 0
            return (due ? state.collected : nil, state.calibration)
        }
        guard let samples, let fitted = MagnetometerCalibration.fit(samples),
            fitted.headingAccuracy < current?.headingAccuracy ?? .infinity
        else { return current }
        state.withLock { $0.calibration = fitted }
        do {
            try store?.save(fitted, key: Self.key(magnetometer))
        } catch {
            logger.warning("Cannot save the magnetometer calibration", metadata: ["error": "\(error)"])
        }
        return fitted
    }
}

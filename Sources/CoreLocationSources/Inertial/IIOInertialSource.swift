import CoreLocationEngine
import Foundation
import Logging

/// Accelerometer and gyroscope samples from Linux IIO devices (decision 0096): one device with both (bmi160,
/// bmi270, inv_mpu6050, icm20948 through inv_mpu6050) or an accelerometer and a gyroscope of one chip (st_lsm6dsx),
/// paired as `IIOInertialSensors` says.
///
/// - Buffered (`Mode.buffered`) where the devices have a buffer this process may use: between `start` and `stop`
///   the buffer is on (`buffer/enable` 1; 0 again on `stop`), the sampling frequency is set to the nearest
///   available at or above `rate`, and `/dev/iio:deviceN` is read every `pollInterval` seconds on the scheduler;
///   scans are decoded (`IIOBufferDecoder`) and stamped by their timestamp channel, mapped onto the scheduler's
///   timeline (`IIOTimestampMapping`).
/// - Polled (`Mode.polled`) otherwise: the six `_raw` files every 1/`sampleRate` seconds, stamped `scheduler.now`,
///   at `rate` but never faster than the device converts (its `sampling_frequency`, when it states one: polling
///   faster would repeat values and look frozen).
///
/// Units and frame: value = (raw + offset) × scale (m/s², rad/s), then the channel type's mounting matrix
/// (`IIOMountMatrix`), whose "main hardware" frame is taken as the body frame (x forward, y left, z up).
///
/// Bad input (`InertialSampleCheck`): saturated, implausible and frozen samples are withheld and reported as
/// `.unavailable`; a device whose directory vanishes or whose files fail is `.unavailable` on every poll, closed,
/// and reopened on the next poll that finds it back. Nothing is read or written before `start`; nothing is
/// delivered after `stop()` has returned.
public final class IIOInertialSource: InertialSource {
    public enum Mode: Sendable, Hashable, CustomStringConvertible {
        case buffered
        /// Read from the `_raw` files; `reason` says why not through the buffer.
        case polled(reason: String)

        public var description: String {
            switch self {
            case .buffered: "buffered"
            case .polled: "polled"
            }
        }
    }

    public static let defaultRate = 100.0
    /// Seconds between reads of a buffer: at 100 Hz, 5 scans a read.
    public static let bufferPollInterval = 0.05

    public let sensors: IIOInertialSensors
    public let mode: Mode
    /// The rate asked for, Hz.
    public let requestedRate: Double
    public var name: String { sensors.label }
    public var isSimulated: Bool { false }

    private struct Loop: Sendable {
        var work: (any ScheduledWork)?
        var reader: IIOInertialReader
        var lastProblem: String?
    }

    private let scheduler: any Scheduler
    private let logger: Logger
    private let run: SourceRun<Loop, InertialSourceEvent>

    /// - Parameters:
    ///   - rate: samples per second asked for (default 100; 1…1000).
    ///   - devRoot: where the buffers' nodes are (`iio:deviceN`), normally "/dev".
    public init(
        sensors: IIOInertialSensors, rate: Double = IIOInertialSource.defaultRate, sysfsRoot: String = "/sys",
        devRoot: String = "/dev", scheduler: any Scheduler,
        logger: Logger = Logger(label: "corelocation.inertial")
    ) {
        self.sensors = sensors
        requestedRate = rate.isFinite ? min(max(rate, 1), 1000) : Self.defaultRate
        let problems = sensors.devices.compactMap {
            IIOBufferedDevice.check($0, types: sensors.types(of: $0), sysfsRoot: sysfsRoot, devRoot: devRoot)
        }
        mode = problems.isEmpty ? .buffered : .polled(reason: problems.joined(separator: "; "))
        self.scheduler = scheduler
        self.logger = logger
        let accelerometerMount = sensors.accelerometer.mountMatrix(for: "accel")
        let gyroscopeMount = sensors.gyroscope.mountMatrix(for: "anglvel")
        for problem in [accelerometerMount.problem, gyroscopeMount.problem].compactMap({ $0 }) {
            logger.warning("Mounting matrix ignored", metadata: ["problem": "\(problem)"])
        }
        let reader = IIOInertialReader(
            sensors: sensors, mode: mode, rate: requestedRate, sysfsRoot: sysfsRoot, devRoot: devRoot,
            accelerometerMount: accelerometerMount.matrix, gyroscopeMount: gyroscopeMount.matrix)
        run = SourceRun(Loop(reader: reader), events: InertialSourceEvent.self, exclusiveDelivery: true)
    }

    /// The first inertial unit under `sysfsRoot` (`IIOInertialSensors.discover`), nil without one.
    public static func discover(
        sysfsRoot: String = "/sys", devRoot: String = "/dev", scheduler: any Scheduler,
        rate: Double = IIOInertialSource.defaultRate, logger: Logger = Logger(label: "corelocation.inertial")
    ) -> IIOInertialSource? {
        guard let sensors = IIOInertialSensors.discover(sysfsRoot: sysfsRoot) else { return nil }
        return IIOInertialSource(
            sensors: sensors, rate: rate, sysfsRoot: sysfsRoot, devRoot: devRoot, scheduler: scheduler, logger: logger)
    }

    /// The first inertial unit under the roots an environment names: `CORELOCATION_SYSFS_ROOT` (else "/sys") and
    /// `CORELOCATION_DEV_ROOT` (else "/dev").
    public static func discover(
        environment: [String: String], scheduler: any Scheduler, rate: Double = IIOInertialSource.defaultRate,
        logger: Logger = Logger(label: "corelocation.inertial")
    ) -> IIOInertialSource? {
        discover(
            sysfsRoot: BarometerSpec.sysfsRoot(environment: environment), devRoot: devRoot(environment: environment),
            scheduler: scheduler, rate: rate, logger: logger)
    }

    /// `CORELOCATION_DEV_ROOT`, else "/dev" (tests stand files in for `/dev/iio:deviceN`).
    public static func devRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["CORELOCATION_DEV_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/dev"
    }

    /// The nominal rate, Hz: the devices' sampling frequency once a run has set it (buffered), the polling rate
    /// (polled: `requestedRate`, capped at the devices' sampling frequency); before a run, `plannedRate`.
    public var sampleRate: Double {
        guard let deviceRate = run.withLock({ $0.reader.deviceRate }) else { return plannedRate }
        switch mode {
        case .buffered: return deviceRate
        case .polled: return min(requestedRate, deviceRate)
        }
    }

    /// The rate a run will ask the devices for (the nearest available at or above `requestedRate`), without
    /// writing anything: what `locationctl sources` lists.
    public var plannedRate: Double {
        let planned = sensors.devices.compactMap {
            IIOBufferedDevice.plannedFrequency($0, types: sensors.types(of: $0), rate: requestedRate)
        }.min()
        switch mode {
        case .buffered: return planned ?? requestedRate
        case .polled: return min(requestedRate, planned ?? requestedRate)
        }
    }

    /// Samples per second delivered in the current (or last) run, from the samples' own times; nil before two.
    public var measuredRate: Double? { run.withLock { $0.reader.measuredRate } }

    /// Whether a run has the devices open (the buffer on, when buffered).
    public var isPowered: Bool { run.withLock { $0.reader.isOpen } }

    public func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void) {
        run.exclusively {
            let generation = run.start(handler) { run in
                run.work?.cancel()
                run.work = nil
                run.reader.close()
                run.lastProblem = nil
            }.generation
            schedule(generation, at: scheduler.now)
        }
    }

    /// A source let go of while running turns its buffer off.
    deinit { stop() }

    public func stop() {
        run.exclusively {
            run.stop { run in
                run.work?.cancel()
                run.work = nil
                run.reader.close()
            }
        }
    }

    private func interval() -> Double {
        mode == .buffered ? Self.bufferPollInterval : 1 / sampleRate
    }

    private func schedule(_ generation: Int, at deadline: Double) {
        let work = scheduler.schedule(at: deadline) { [weak self] in self?.tick(generation, at: deadline) }
        run.withLock { run in
            if run.isCurrent(generation) { run.work = work } else { work.cancel() }
        }
    }

    private func tick(_ generation: Int, at deadline: Double) {
        let now = scheduler.now
        guard let polled = run.ifCurrent(generation, { Self.poll(&$0.extra, now: now) }) else { return }
        if let problem = polled.newProblem {
            logger.warning("Inertial sensors unusable", metadata: ["problem": "\(problem)"])
        }
        guard run.emit(polled.events, generation) else { return }
        schedule(generation, at: max(deadline + interval(), now))
    }

    /// One poll of the run's reader; `newProblem` is the last problem it reports when that differs from the one
    /// reported before (logged once per problem, not on every poll).
    private static func poll(_ loop: inout Loop, now: Double) -> (events: [InertialSourceEvent], newProblem: String?) {
        let events = loop.reader.poll(now: now)
        var problem: String?
        for case .unavailable(let reason) in events { problem = reason }
        let hasSamples = events.contains { if case .samples = $0 { true } else { false } }
        defer { loop.lastProblem = problem ?? (hasSamples ? nil : loop.lastProblem) }
        return (events, problem != loop.lastProblem ? problem : nil)
    }
}

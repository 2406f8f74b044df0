import CoreLocationEngine
import Synchronization

/// An IMU with the compass of the same board: the inertial source's samples, each compass reading attached, as the
/// heading of the body's x axis, to the first sample at or after the instant it was read (decision 0095, Compass).
///
/// Why the heading is the body's: the IMU's samples and the magnetometer's field are both in the board's main
/// hardware frame (each IIO device's `mount_matrix` applied, decision 0014 and 0096), and the filter takes that
/// frame's x axis as the vehicle's forward axis (its vehicle constraint already does). So the magnetic heading of
/// +x in the magnetometer's frame is the heading the filter's yaw describes. Up is the IMU's specific force
/// averaged over about a second (at rest it points away from the Earth; the average keeps a car's braking from
/// tilting it much), else the magnetometer source's own accelerometer, else +z (level).
///
/// A reading without a usable accuracy (an uncalibrated magnetometer says −1) is not attached; a reported heading
/// (a GNSS compass) is attached as it is, true or magnetic. Samples are otherwise passed on untouched, and the
/// compass runs exactly while the IMU runs.
public final class CompassedInertialSource: InertialSource {
    public let inertial: any InertialSource
    public let compass: any HeadingSource
    public var name: String { inertial.name }
    public var isSimulated: Bool { inertial.isSimulated }
    public var sampleRate: Double { inertial.sampleRate }

    /// Seconds over which the IMU's specific force is averaged into the up direction.
    static let upTimeConstant = 1.0

    private struct State {
        var running = false
        /// The last compass reading not yet attached, with the scheduler time it was read at.
        var pending: (heading: InertialSample.BodyHeading, at: Double)?
        /// The IMU's specific force, low-passed; nil before the first sample of a run.
        var up: DeviceVector?
        var lastSampleTime: Double?
    }

    private let scheduler: any Scheduler
    private let state = Mutex(State())

    public init(_ inertial: any InertialSource, compass: any HeadingSource, scheduler: any Scheduler) {
        self.inertial = inertial
        self.compass = compass
        self.scheduler = scheduler
    }

    public func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void) {
        state.withLock { $0 = State(running: true) }
        compass.start { [weak self] event in
            guard let self, case let .sample(sample) = event else { return }
            self.compassRead(sample)
        }
        inertial.start { [weak self] event in
            guard let self, case let .samples(samples) = event else { return handler(event) }
            handler(.samples(self.attachingHeadings(to: samples)))
        }
    }

    public func stop() {
        inertial.stop()
        compass.stop()
        state.withLock { $0 = State() }
    }

    /// A compass reading at the scheduler's present instant, kept for the next sample.
    func compassRead(_ sample: HeadingSample) {
        let now = scheduler.now
        state.withLock { state in
            guard state.running, let heading = Self.bodyHeading(sample, up: state.up) else { return }
            state.pending = (heading, now)
        }
    }

    /// `samples` with the pending compass reading attached to the first plausible one at or after it was read.
    func attachingHeadings(to samples: [InertialSample]) -> [InertialSample] {
        state.withLock { state in
            var samples = samples
            for k in samples.indices {
                let s = samples[k]
                let f = DeviceVector(x: s.accelerationX, y: s.accelerationY, z: s.accelerationZ)
                if s.isPlausible, let up = state.up, let last = state.lastSampleTime, s.time > last {
                    let a = min(1, (s.time - last) / Self.upTimeConstant)
                    state.up = up + a * (f + (-1) * up)
                } else if s.isPlausible, state.up == nil {
                    state.up = f
                }
                if s.isPlausible { state.lastSampleTime = max(state.lastSampleTime ?? s.time, s.time) }
                // Not on a sample the filter will drop (implausible): the heading would go with it.
                if s.isPlausible, let pending = state.pending, s.time >= pending.at {
                    samples[k].heading = pending.heading
                    state.pending = nil
                }
            }
            return samples
        }
    }

    /// The heading of the body's x axis in a compass reading, or nil when it has none with a usable accuracy.
    static func bodyHeading(_ sample: HeadingSample, up: DeviceVector?) -> InertialSample.BodyHeading? {
        guard sample.accuracy > 0, sample.accuracy.isFinite else { return nil }
        if let reported = sample.reported {
            if let degrees = reported.trueHeading {
                return InertialSample.BodyHeading(degrees: degrees, accuracy: sample.accuracy, isTrue: true)
            }
            return reported.magneticHeading.map {
                InertialSample.BodyHeading(degrees: $0, accuracy: sample.accuracy, isTrue: false)
            }
        }
        guard !sample.isSaturated,
            let degrees = HeadingMath.magneticHeading(
                field: sample.field, up: up ?? sample.gravity ?? DeviceVector(x: 0, y: 0, z: 1),
                of: DeviceVector(x: 1, y: 0, z: 0))
        else { return nil }
        return InertialSample.BodyHeading(degrees: degrees, accuracy: sample.accuracy, isTrue: false)
    }
}

import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

/// A simulated device lying flat, face up, turning at a constant rate: its magnetometer sees the
/// horizontal field H rotate the other way and the vertical field Z fixed. Samples carry seeded
/// uniform noise of ±`noise` µT per axis (a real sensor is never perfectly still,
/// and the heading engine treats an unchanging reading as a stuck sensor).
///
/// The field is WMM2025's at `location` on the start date, or H = 20 µT north, Z = 45 µT down
/// (mid-latitudes) without one. Magnetic heading at time t (seconds after `start`) is
/// `startHeading + rate · t`, modulo 360.
public final class SimulatedHeadingSource: HeadingSource {
    public let startHeading: Double
    /// Degrees per second, clockwise seen from above.
    public let rate: Double
    public let interval: Double
    public let horizontal: Double
    public let vertical: Double
    public let noise: Double
    public var name: String { "simulated (rotating \(rate)°/s)" }
    public var isSimulated: Bool { true }

    private struct State {
        var startedAt = 0.0
        var random: SplitMix64
        var work: (any ScheduledWork)?
    }

    private let scheduler: any Scheduler
    private let state: SourceRun<State, HeadingSourceEvent>

    public init(
        startHeading: Double = 0, rate: Double = 10, interval: Double = 0.1, location: HeadingLocation? = nil,
        noise: Double = 0.05, seed: UInt64 = 1, scheduler: any Scheduler
    ) {
        self.startHeading = startHeading.isFinite ? startHeading : 0
        self.rate = rate.isFinite ? rate : 0
        self.interval = interval.isFinite && interval > 0 ? interval : 0.1
        self.noise = noise.isFinite ? abs(noise) : 0
        self.scheduler = scheduler
        var h = 20.0
        var z = 45.0
        if let location,
            let field = try? MagneticModel.wmm2025.field(
                latitude: location.latitude, longitude: location.longitude,
                heightKilometers: max(-10, min(1000, location.ellipsoidalAltitude / 1000)),
                decimalYear: HeadingMath.decimalYear(scheduler.wallNow))
        {
            h = field.horizontalIntensity / 1000
            z = field.down / 1000
        }
        horizontal = h
        vertical = z
        state = SourceRun(State(random: SplitMix64(seed: seed)), events: HeadingSourceEvent.self)
    }

    /// The device's magnetic heading `seconds` after start, degrees in [0, 360).
    public func heading(after seconds: Double) -> Double {
        HeadingMath.normalized(startHeading + rate * seconds)
    }

    public func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        let now = scheduler.now
        let (generation, _) = state.start(handler) { state in
            state.work?.cancel()
            state.startedAt = now
        }
        schedule(generation: generation, at: now)
    }

    public func stop() {
        state.stop { state in
            state.work?.cancel()
            state.work = nil
        }
    }

    private func schedule(generation: Int, at deadline: Double) {
        let work = scheduler.schedule(at: deadline) { [weak self] in self?.emit(generation: generation, at: deadline) }
        state.withLock { state in
            if state.generation == generation { state.work = work } else { work.cancel() }
        }
    }

    private func emit(generation: Int, at deadline: Double) {
        let sample = state.ifCurrent(generation) { state -> HeadingSample in
            let psi = heading(after: deadline - state.startedAt) * .pi / 180
            func jitter() -> Double { noise == 0 ? 0 : Double.random(in: -noise...noise, using: &state.random) }
            let field = DeviceVector(
                x: -horizontal * sin(psi) + jitter(), y: horizontal * cos(psi) + jitter(), z: -vertical + jitter()
            )
            let sample = HeadingSample(
                field: field, gravity: DeviceVector(x: 0, y: 0, z: 9.80665), accuracy: 3,
                timestamp: scheduler.wallClock(at: deadline)
            )
            return sample
        }
        guard let sample, state.emit(.sample(sample), generation) else { return }
        schedule(generation: generation, at: deadline + interval)
    }
}

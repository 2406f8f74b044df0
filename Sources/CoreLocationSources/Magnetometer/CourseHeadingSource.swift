import Foundation
import CoreLocationEngine
import Synchronization

/// A simulated compass that points where a simulated route goes: each fix with a valid course becomes
/// one sample of a flat, face-up device whose top points along the course. Magnetic heading =
/// course − WMM2025 declination at the fix, so the true heading the engine derives is the course again.
/// Samples carry seeded uniform noise of ±`noise` µT (a straight road would otherwise repeat one
/// reading, which the heading engine rightly treats as a stuck sensor). Fixes without a course
/// (standing still) give no sample: nothing is made up.
public final class CourseHeadingSource: HeadingSource {
    public var name: String { "simulated (following the route's course)" }
    public var isSimulated: Bool { true }
    public let noise: Double

    private struct State {
        var handler: (@Sendable (HeadingSourceEvent) -> Void)?
        var random: SplitMix64
    }

    private let state: Mutex<State>

    public init(noise: Double = 0.05, seed: UInt64 = 1) {
        self.noise = noise.isFinite ? abs(noise) : 0
        state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    public func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }

    public func stop() {
        state.withLock { $0.handler = nil }
    }

    /// Feeds one fix of the simulated route.
    public func follow(_ fix: Fix) {
        guard fix.course >= 0, fix.course.isFinite else { return }
        let location = HeadingLocation(latitude: fix.latitude, longitude: fix.longitude)
        let declination = HeadingMath.declination(at: location, date: fix.timestamp) ?? 0
        let psi = (fix.course - declination) * .pi / 180
        let made = state.withLock { state -> (@Sendable (HeadingSourceEvent) -> Void, HeadingSample)? in
            guard let handler = state.handler else { return nil }
            func jitter() -> Double { noise == 0 ? 0 : Double.random(in: -noise...noise, using: &state.random) }
            let field = DeviceVector(x: -20 * sin(psi) + jitter(), y: 20 * cos(psi) + jitter(), z: -45 + jitter())
            let sample = HeadingSample(
                field: field, gravity: DeviceVector(x: 0, y: 0, z: 9.80665), accuracy: 3, timestamp: fix.timestamp)
            return (handler, sample)
        }
        guard let made else { return }
        made.0(.sample(made.1))
    }
}

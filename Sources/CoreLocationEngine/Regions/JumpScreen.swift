import Foundation

/// Tells a receiver's jumps (a fix hundreds of metres off, and back) from movement (decision 0063).
///
/// Time is the fixes' own timestamps. Every valid fix is compared with the fix before it (whatever
/// that one was) and with the last *accepted* fix: the *step speed* is
/// `max(0, distance − accuracy₁ − accuracy₂) / Δt` (so a fix whose stated uncertainty covers the step
/// is never a jump).
/// - A fix is a **jump** when its step from the last accepted fix is faster than
///   `min(maximumSpeed, recentSpeed + acceleration × Δt + slack)`: faster than anything on the road
///   (70 m/s), or than the user could have sped up to from the speed they had (`recentSpeed`, net
///   over the last `speedWindow` seconds of accepted fixes, or of the last step if faster) at a car's `acceleration` (3 m/s²),
///   with `slack` (5 m/s) for noise. A gap lets the allowed speed grow, so a fix far away after a
///   receiver was off for a minute is accepted at once when the trip was possible.
/// - After a jump the screen *holds*: fixes are rejected while they stay away from the last
///   accepted fix by the same test, without the acceleration term (the time a jump lasts is no gap
///   in which the user could have sped up). A fix that is plausible again from the last accepted one
///   ends the hold (the jump came back: it never was movement). A hold whose fixes agree with each other
///   (each a plausible step from the one before) for `holdTime` (60 s) is accepted: the receiver
///   was not jumping, the user really is there (a wrong first fix corrected, a ferry).
///
/// A real fast move is accepted fix by fix: a car at 30 m/s, sampled every second or every five,
/// steps at its own speed, which its recent speed allows. What is rejected is a step that no
/// vehicle makes between two fixes: 500 m in 5 s after standing still.
public struct JumpScreen: Sendable, Hashable, Codable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// m/s: faster than road traffic; no step from the last accepted fix may be faster.
        public var maximumSpeed = 70.0
        /// m/s²: how fast the allowed speed grows with the time since the last accepted fix.
        public var acceleration = 3.0
        /// m/s allowed on top of the recent speed (noise in the speed estimate).
        public var slack = 5.0
        /// Seconds of accepted fixes the recent speed is measured over (net displacement / time).
        public var speedWindow = 15.0
        /// Seconds a held jump's fixes must agree among themselves before they are accepted.
        public var holdTime = 60.0

        public init() {}
    }

    public enum Verdict: Sendable, Hashable {
        case accepted
        /// A jump, or a fix of a jump being held: not movement, not evidence.
        case jump
    }

    struct Sample: Sendable, Hashable, Codable {
        var time: Double
        var latitude: Double
        var longitude: Double
        var accuracy: Double
    }

    public let parameters: Parameters
    private var accepted: [Sample] = []
    /// While holding: the first rejected fix's time, and the rejected fixes that agree with each other.
    private var holdSince: Double?
    private var held: [Sample] = []
    private var lastHeld: Sample? { held.last }

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Whether a jump is being held (the newest fix was rejected).
    public var isHolding: Bool { holdSince != nil }

    /// How many of the fixes before the newest, each rejected when it came, the newest verdict showed to be the
    /// user's path: a hold whose fixes agreed for `holdTime`, or whose fixes this one continues at their pace; 0
    /// otherwise. A consumer that keeps what it rejected (the reporter, which owes its bound on every fix of the
    /// user's path) takes them up, oldest first, before the newest.
    public private(set) var releasedCount = 0

    /// Screens one fix (valid: accuracy ≥ 0, finite coordinate). A fix not newer than the last one
    /// screened is a jump unless it agrees with the last accepted one (a repeat).
    public mutating func screen(_ fix: Fix) -> Verdict {
        releasedCount = 0
        let sample = Sample(
            time: fix.timestamp.timeIntervalSince1970, latitude: fix.latitude, longitude: fix.longitude,
            accuracy: max(0, fix.horizontalAccuracy))
        guard let last = accepted.last else {
            accept(sample)
            return .accepted
        }
        let newest = max(last.time, lastHeld?.time ?? last.time)
        // Not newer (a repeat, or out of order): accepted only where the last accepted fix's and its own
        // accuracies overlap; it changes nothing.
        guard sample.time > newest else {
            return Self.distance(last, sample) <= last.accuracy + sample.accuracy ? .accepted : .jump
        }
        // While a jump is held, the time it lasts gives the user no room to speed up: back means within
        // what the recent speed covers (a held spike is not a gap).
        if plausible(from: last, to: sample, recent: recentSpeed, holding: holdSince != nil) {
            // The hold ends. Its fixes were the user's path after all when this fix continues them at their own pace
            // (a one-way step: a receiver that corrected itself, whose path then passes where the old one led), not
            // when it steps back from them (a jump, and back). The regions do without them either way.
            if let lastHeld, holdSince != nil,
                plausible(from: lastHeld, to: sample, recent: Self.netSpeed(held, window: parameters.speedWindow))
            {
                releasedCount = held.count
            }
            holdSince = nil
            held.removeAll()
            accept(sample)
            return .accepted
        }
        if let previous = lastHeld, let since = holdSince, plausible(from: previous, to: sample, recent: 0, within: true) {
            held.append(sample)
            if sample.time - since >= parameters.holdTime {
                // The held fixes agreed for the hold time: the user is there, moving as they show.
                holdSince = nil
                accepted.removeAll()
                for fix in held { accept(fix) }
                releasedCount = held.count - 1
                held.removeAll()
                return .accepted
            }
            return .jump
        }
        holdSince = sample.time
        held = [sample]
        return .jump
    }

    /// The user's recent speed, m/s: the larger of the net speed over the accepted fixes of the last
    /// `speedWindow` seconds and the last step's (a car speeding up is faster than its net speed).
    var recentSpeed: Double {
        guard accepted.count > 1, let last = accepted.last, let first = accepted.first else { return 0 }
        let previous = accepted[accepted.count - 2]
        let net = Self.distance(first, last) / (last.time - first.time)
        let step = max(0, Self.distance(previous, last) - previous.accuracy - last.accuracy) / (last.time - previous.time)
        return max(net, step)
    }

    /// Net speed over the newest `window` seconds of `samples` (the last step's, over a shorter span); 0 for one.
    static func netSpeed(_ samples: [Sample], window: Double) -> Double {
        guard let last = samples.last,
            let first = samples.first(where: { last.time - $0.time <= window && $0.time < last.time })
                ?? (samples.count > 1 ? samples[samples.count - 2] : nil),
            last.time > first.time
        else { return 0 }
        return distance(first, last) / (last.time - first.time)
    }

    private func plausible(from a: Sample, to b: Sample, recent: Double, holding: Bool = false, within: Bool = false)
        -> Bool
    {
        let dt = b.time - a.time
        guard dt > 0 else { return false }
        let step = max(0, Self.distance(a, b) - a.accuracy - b.accuracy) / dt
        // Within a held jump the fixes are compared step by step, at the speed they show.
        let growth = holding ? 0 : parameters.acceleration * dt
        let base = within ? parameters.maximumSpeed : recent + growth + parameters.slack
        return step <= min(parameters.maximumSpeed, base)
    }

    private mutating func accept(_ sample: Sample) {
        accepted.append(sample)
        while accepted.count > 2, sample.time - accepted[1].time >= parameters.speedWindow {
            accepted.removeFirst()
        }
    }

    /// Metres between two nearby points on a local plane (spherical Earth, IUGG mean radius): jumps
    /// of hundreds of metres are judged, where the plane's error is far below a receiver's noise.
    static func distance(_ a: Sample, _ b: Sample) -> Double {
        LocalPlane.distance(latitude1: a.latitude, longitude1: a.longitude, latitude2: b.latitude, longitude2: b.longitude)
    }
}

/// Distances on a local tangent plane, for the engine's noise rules (jumps, stays): at the few
/// hundred metres these judge, the difference from the geodesic is centimetres.
enum LocalPlane {
    static let radius = 6_371_008.8

    static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        var dLon = longitude2 - longitude1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let x = dLon * .pi / 180 * cos((latitude1 + latitude2) / 2 * .pi / 180)
        let y = (latitude2 - latitude1) * .pi / 180
        return radius * (x * x + y * y).squareRoot()
    }
}

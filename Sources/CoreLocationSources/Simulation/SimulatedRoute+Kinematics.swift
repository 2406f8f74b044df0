import Foundation
import CoreLocationGeodesy

/// Speed and course at one point of a route, with their accuracies (Core Location's meaning: a
/// negative accuracy marks the value invalid; −1 values are unknown).
public struct RouteKinematics: Sendable, Hashable {
    /// Metres per second, or −1.
    public var speed: Double
    /// Metres per second, or −1.
    public var speedAccuracy: Double
    /// Degrees clockwise from true north in [0, 360), or −1.
    public var course: Double
    /// Degrees, or −1.
    public var courseAccuracy: Double
}

extension SimulatedRoute {
    /// Relative position error between two consecutive recorded points, metres (1σ per point).
    ///
    /// A receiver's error is strongly correlated from one second to the next (it drifts over tens of
    /// seconds), so the error of a *difference* of consecutive fixes is far smaller than the 5 m
    /// absolute accuracy; 0.5 m is a typical figure for consumer GNSS at 1 Hz.
    public static let relativePositionError = 0.5

    /// Speed and course at point `index`, derived from the neighbouring points unless the recording
    /// has them.
    ///
    /// Method: the segment to the next point (the previous one for the last point); speed = geodesic
    /// distance / time at recorded pace; course = forward azimuth of that geodesic at this point (the
    /// arrival azimuth for the last point). Accuracies follow from `relativePositionError` (σ):
    /// speedAccuracy = √2·σ / Δt, courseAccuracy = atan(speedAccuracy / speed) (or atan(√2·σ / distance)
    /// when Δt is 0), capped at 180°. A point that does not move (distance < 1 mm) has course −1; a
    /// segment with Δt = 0 has speed −1. Recorded `speed`/`course` win over derived ones.
    public func kinematics(at index: Int) -> RouteKinematics {
        guard points.indices.contains(index) else {
            return RouteKinematics(speed: -1, speedAccuracy: -1, course: -1, courseAccuracy: -1)
        }
        guard points.count > 1 else { return Self.kinematics(of: points[index], segment: nil) }
        let forward = index + 1 < points.count
        let (a, b) = forward ? (index, index + 1) : (index - 1, index)
        return Self.kinematics(
            of: points[index], segment: (points[a], points[b], offsets[b] - offsets[a], forward))
    }

    /// The same rule for one point given its segment: `from`→`to` taking `seconds` at recorded pace,
    /// `forward` when the point is `from` (else it is `to`, the route's last point); nil for a route
    /// of one point.
    static func kinematics(
        of point: RoutePoint, segment: (from: RoutePoint, to: RoutePoint, seconds: Double, forward: Bool)?
    ) -> RouteKinematics {
        var result = RouteKinematics(speed: -1, speedAccuracy: -1, course: -1, courseAccuracy: -1)
        let spread = 2.0.squareRoot() * Self.relativePositionError
        var distance = 0.0
        if let segment {
            let inverse = Geodesic.wgs84.inverse(
                latitude1: segment.from.latitude, longitude1: segment.from.longitude,
                latitude2: segment.to.latitude, longitude2: segment.to.longitude
            )
            distance = inverse.distance
            let dt = segment.seconds
            if dt > 0, distance.isFinite {
                result.speed = distance / dt
                result.speedAccuracy = spread / dt
            }
            if distance >= 0.001 {
                let azimuth = segment.forward ? inverse.azimuth1 : inverse.azimuth2
                result.course = Self.normalized(azimuth)
            }
        }
        if let speed = point.speed {
            result.speed = speed
            if result.speedAccuracy < 0 { result.speedAccuracy = spread }
        }
        if let course = point.course { result.course = Self.normalized(course) }
        if result.course >= 0 {
            if result.speed > 0, result.speedAccuracy >= 0 {
                result.courseAccuracy = min(180, atan2(result.speedAccuracy, result.speed) * 180 / .pi)
            } else if distance >= 0.001 {
                result.courseAccuracy = min(180, atan2(spread, distance) * 180 / .pi)
            } else {
                result.courseAccuracy = 180
            }
        }
        return result
    }

    private static func normalized(_ degrees: Double) -> Double {
        let value = degrees.truncatingRemainder(dividingBy: 360)
        let positive = value < 0 ? value + 360 : value
        return positive >= 360 ? 0 : positive
    }
}

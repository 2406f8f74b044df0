import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

/// Replays a route as fixes, driven by elapsed time only: pure, no clock, no I/O.
///
/// Point `i` of lap `k` is due at playback second `(k · lapDuration + offsets[i]) / speed`, where
/// `offsets` are the route's seconds at recorded pace. `speed = .infinity` makes every point due at
/// second 0, in order ("as fast as possible"); looping is then ignored, so a replay always ends.
/// When looping, a lap lasts the route's duration plus `lapGap` (1 s at recorded pace) and the
/// position jumps from the last point back to the first.
///
/// Fix values: latitude/longitude of the recorded point; `altitude` = GPX `ele` (above mean sea
/// level) and `ellipsoidalAltitude` = `ele` + the EGM96 geoid height N at the point (GPX elevations
/// are orthometric by convention);
/// `horizontalAccuracy` 5 m and `verticalAccuracy` 8 m (−1 without `ele`), typical of a consumer
/// receiver in the open; speed and course as `SimulatedRoute.kinematics(at:)` derives them;
/// `isSimulated` true. The timestamp is the caller's (the wall clock at emission), never the
/// recorded date.
public struct RoutePlayer: Sendable {
    /// Reported radius of uncertainty of every replayed position, metres.
    public static let horizontalAccuracy = 5.0
    /// Reported altitude uncertainty when the point has an elevation, metres.
    public static let verticalAccuracy = 8.0
    /// Pause between the end of a lap and the start of the next when looping, recorded seconds.
    public static let lapGap = 1.0

    public let route: SimulatedRoute
    /// Playback speed as a multiple of recorded pace, > 0 (`.infinity` allowed).
    public let speed: Double
    /// Whether the replay starts again after the last point.
    public let loops: Bool

    private let kinematics: [RouteKinematics]
    private var nextIndex = 0
    private var lap = 0

    /// - Throws: `SimulationError.Code.invalidSpeed` unless `speed > 0`.
    public init(route: SimulatedRoute, speed: Double = 1, loops: Bool = false) throws {
        guard speed > 0 else {
            throw SimulationError(code: .invalidSpeed, message: "speed must be greater than 0, got \(speed)")
        }
        self.route = route
        self.speed = speed
        self.loops = loops && speed.isFinite && !route.points.isEmpty
        self.kinematics = route.points.indices.map(route.kinematics(at:))
    }

    /// True once every point has been returned (never, when looping).
    public var isFinished: Bool { nextIndex >= route.points.count }

    /// Playback second at which the next point is due; nil when finished.
    public var nextDue: Double? {
        guard !isFinished else { return nil }
        let recorded = Double(lap) * (route.duration + Self.lapGap) + route.offsets[nextIndex]
        return speed.isFinite ? recorded / speed : 0
    }

    /// Returns the fixes of every point due at or before playback second `elapsed`, in order, all
    /// stamped `timestamp`, and moves past them. At infinite speed (every point at once) each fix is
    /// stamped with the recording's own time instead (its start plus the point's offset; for a route
    /// without times, `timestamp` plus the offset), so the recording's timing survives a replay "as
    /// fast as possible": a GPX written from it replays with the same speeds, and the visits and
    /// events it shows carry the times they happened.
    public mutating func advance(to elapsed: Double, timestamp: Date) -> [Fix] {
        advance(to: elapsed, timestamp: timestamp, limit: .max)
    }

    /// Like `advance(to:timestamp:)`, returning at most `limit` fixes (the rest stay due), so that a
    /// replay as fast as possible hands out a long route in batches rather than all at once.
    public mutating func advance(to elapsed: Double, timestamp: Date, limit: Int) -> [Fix] {
        var fixes: [Fix] = []
        while fixes.count < limit, let due = nextDue, due <= elapsed {
            let lapStart = (route.recordedStart ?? timestamp)
                .addingTimeInterval(Double(lap) * (route.duration + Self.lapGap))
            let stamp = speed.isFinite ? timestamp : lapStart.addingTimeInterval(route.offsets[nextIndex])
            fixes.append(fix(at: nextIndex, timestamp: stamp))
            nextIndex += 1
            if nextIndex == route.points.count, loops {
                nextIndex = 0
                lap += 1
            }
        }
        return fixes
    }

    /// The fix for point `index`, a valid index of the route's points (callers are this type only).
    private func fix(at index: Int, timestamp: Date) -> Fix {
        let point = route.points[index]
        let motion = kinematics[index]
        return Fix(
            latitude: point.latitude,
            longitude: point.longitude,
            altitude: point.elevation ?? 0,
            ellipsoidalAltitude: point.elevation.map {
                $0 + EGM96Geoid.geoidHeight(latitude: point.latitude, longitude: point.longitude)
            } ?? 0,
            horizontalAccuracy: Self.horizontalAccuracy,
            verticalAccuracy: point.elevation == nil ? -1 : Self.verticalAccuracy,
            course: motion.course,
            courseAccuracy: motion.courseAccuracy,
            speed: motion.speed,
            speedAccuracy: motion.speedAccuracy,
            timestamp: timestamp,
            isSimulated: true
        )
    }
}

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
/// `isSimulated` true. The timestamp is the caller's (the wall clock at emission) at speed 1, never the
/// recorded date — unless `recordedTimes` is set (replays on the recording's timeline, decision 0020)
/// or the speed is infinite: then each fix carries the recording's own time. At another finite speed
/// it is the simulation's time: the wall clock at playback second 0 plus the recorded seconds, so a
/// fix's time and place keep the recording's pace (decision 0062).
///
/// Rate: with `rate` set (Hz), the player emits a fix every `1 / rate` recorded seconds from the first
/// point, interpolated between the recorded points on either side (position along their geodesic,
/// elevation linearly, speed of the segment, course the geodesic's azimuth there), and the last
/// point at the end — what a receiver at that rate would have reported, like Xcode's GPX
/// simulation. A grid instant that falls on a recorded point gives that point's fix exactly.
/// Without `rate`, the recorded points themselves, at their recorded offsets.
public struct RoutePlayer: Sendable {
    /// Reported radius of uncertainty of every replayed position, metres.
    public static let horizontalAccuracy = 5.0
    /// Reported altitude uncertainty when the point has an elevation, metres.
    public static let verticalAccuracy = 8.0
    /// Pause between the end of a lap and the start of the next when looping, recorded seconds.
    public static let lapGap = 1.0

    /// The route's name.
    public var name: String { window.name }
    /// Playback speed as a multiple of recorded pace, > 0 (`.infinity` allowed).
    public let speed: Double
    /// Whether the replay starts again after the last point.
    public let loops: Bool
    /// Fixes per recorded second (interpolated), or nil for the recorded points.
    public let rate: Double?
    /// Whether every fix carries the recording's time (else the caller's timestamp at finite speed).
    public let recordedTimes: Bool

    private var window: RouteWindow
    /// Fixes per lap: the points, or the grid instants plus the last point.
    private let sampleCount: Int
    private var nextIndex = 0
    private var lap = 0
    /// The segment (points `segment`, `segment + 1`) the last interpolated instant fell in.
    private var segment = 0

    /// - Parameters:
    ///   - rate: fixes per recorded second, interpolated; nil for the recorded points.
    ///   - recordedTimes: stamp every fix with the recording's time (see the type's comment).
    /// - Throws: `SimulationError.Code.invalidSpeed` unless `speed > 0`, and unless `rate` (when
    ///   given) is a finite number > 0.
    public init(
        route: SimulatedRoute, speed: Double = 1, loops: Bool = false, rate: Double? = nil, recordedTimes: Bool = false
    ) throws {
        try self.init(window: RouteWindow(route: route), speed: speed, loops: loops, rate: rate, recordedTimes: recordedTimes)
    }

    /// A player reading `stream` as it goes: memory does not depend on the route's length. Never
    /// loops.
    public init(stream: RouteStream, speed: Double = 1, rate: Double? = nil, recordedTimes: Bool = false) throws {
        try self.init(window: RouteWindow(stream: stream), speed: speed, loops: false, rate: rate, recordedTimes: recordedTimes)
    }

    private init(window: RouteWindow, speed: Double, loops: Bool, rate: Double?, recordedTimes: Bool) throws {
        guard speed > 0 else {
            throw SimulationError(code: .invalidSpeed, message: "speed must be greater than 0, got \(speed)")
        }
        if let rate, !(rate > 0 && rate.isFinite) {
            throw SimulationError(code: .invalidSpeed, message: "rate must be a number of fixes per second > 0, got \(rate)")
        }
        self.window = window
        self.speed = speed
        self.loops = loops && speed.isFinite && window.count > 0 && window.isWhole
        self.rate = rate
        self.recordedTimes = recordedTimes
        if let rate, window.count > 0 {
            // Grid instants strictly before the end, then the end itself.
            let grid = (window.duration * rate - 1e-9).rounded(.up)
            self.sampleCount = Int(min(max(grid, 0), Double(Int32.max))) + 1
        } else {
            self.sampleCount = window.count
        }
        if sampleCount > 0 { self.window.load(rate == nil ? 0 : 1) }
    }

    /// True once every point has been returned (never, when looping).
    public var isFinished: Bool { nextIndex >= sampleCount }

    /// Playback second at which the next point is due; nil when finished.
    public var nextDue: Double? {
        guard !isFinished else { return nil }
        let recorded = Double(lap) * (window.duration + Self.lapGap) + offset(of: nextIndex)
        return speed.isFinite ? recorded / speed : 0
    }

    /// Recorded seconds from the first point of sample `index` (< `sampleCount`).
    private func offset(of index: Int) -> Double {
        guard let rate else { return window.offset(index) }
        return index == sampleCount - 1 ? window.duration : Double(index) / rate
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
            let lapStart = (window.recordedStart ?? timestamp)
                .addingTimeInterval(Double(lap) * (window.duration + Self.lapGap))
            let offset = offset(of: nextIndex)
            // At a speed other than 1 the fix carries the simulation's own time — playback second 0 on
            // the wall clock plus the recorded seconds — so its time and its place agree (decision
            // 0062): the engine's rules, which run on the fixes' timestamps, and an app computing a
            // speed see the recording's pace at any `--simulate-speed`.
            let recorded = Double(lap) * (window.duration + Self.lapGap) + offset
            let stamp = !speed.isFinite || recordedTimes
                ? lapStart.addingTimeInterval(offset)
                : speed == 1 ? timestamp : timestamp.addingTimeInterval(recorded - elapsed)
            fixes.append(rate == nil ? fix(at: nextIndex, timestamp: stamp) : interpolatedFix(at: offset, timestamp: stamp))
            nextIndex += 1
            if nextIndex == sampleCount, loops {
                nextIndex = 0
                lap += 1
                segment = 0
            }
            // The next raw point must be readable for `nextDue`.
            if rate == nil, nextIndex < sampleCount { window.load(nextIndex) }
        }
        return fixes
    }

    /// The fix at `offset` recorded seconds into the lap (0 ≤ offset ≤ duration), interpolated
    /// between the recorded points around it; moves `segment` forward.
    private mutating func interpolatedFix(at offset: Double, timestamp: Date) -> Fix {
        let count = window.count
        window.load(segment + 1)
        while segment + 1 < count, window.offset(segment + 1) <= offset {
            segment += 1
            window.load(segment + 1)
        }
        let a = segment
        guard a + 1 < count, offset > window.offset(a) else { return fix(at: a, timestamp: timestamp) }
        let (p, q) = (window.point(a), window.point(a + 1))
        let fraction = (offset - window.offset(a)) / (window.offset(a + 1) - window.offset(a))
        let inverse = Geodesic.wgs84.inverse(
            latitude1: p.latitude, longitude1: p.longitude, latitude2: q.latitude, longitude2: q.longitude)
        let moved = inverse.distance.isFinite && inverse.distance >= 0.001
        let place = moved
            ? Geodesic.wgs84.direct(
                latitude1: p.latitude, longitude1: p.longitude, azimuth1: inverse.azimuth1,
                distance: fraction * inverse.distance)
            : GeodesicDirect(latitude: p.latitude, longitude: p.longitude, azimuth2: inverse.azimuth1)
        var result = fix(at: a, timestamp: timestamp)
        result.latitude = place.latitude
        result.longitude = place.longitude
        if let e1 = p.elevation, let e2 = q.elevation {
            let elevation = e1 + fraction * (e2 - e1)
            result.altitude = elevation
            result.ellipsoidalAltitude =
                elevation + EGM96Geoid.geoidHeight(latitude: place.latitude, longitude: place.longitude)
        } else {
            result.altitude = 0
            result.ellipsoidalAltitude = 0
            result.verticalAccuracy = -1
        }
        if moved, p.course == nil {
            let degrees = place.azimuth2.truncatingRemainder(dividingBy: 360)
            let course = degrees < 0 ? degrees + 360 : degrees
            result.course = course >= 360 ? 0 : course
        }
        return result
    }

    /// The fix for point `index`, a valid index of the route's points (callers are this type only).
    private mutating func fix(at index: Int, timestamp: Date) -> Fix {
        window.load(index)
        let point = window.point(index)
        let motion = window.kinematics(index)
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


import Foundation
import CoreLocationGeodesy

/// One recorded point of a route, as read from GPX (or decoded from a built-in route).
public struct RoutePoint: Sendable, Hashable, Codable {
    /// Degrees, WGS84, in [-90, 90].
    public var latitude: Double
    /// Degrees, WGS84, in [-180, 180].
    public var longitude: Double
    /// GPX `ele`: metres above mean sea level; nil when the file has none.
    public var elevation: Double?
    /// When the point was recorded; nil when the file has no time for it.
    public var time: Date?
    /// Recorded speed, metres per second (GPX 1.0 `speed` or an extension); nil when absent.
    public var speed: Double?
    /// Recorded course, degrees clockwise from true north (GPX 1.0 `course` or an extension).
    public var course: Double?

    public init(
        latitude: Double,
        longitude: Double,
        elevation: Double? = nil,
        time: Date? = nil,
        speed: Double? = nil,
        course: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.time = time
        self.speed = speed
        self.course = course
    }
}

/// A route to replay: points in order, each with the moment (seconds from the first point) at which
/// a replay at recorded pace reaches it.
///
/// Timing: when every point has a `time`, offsets are the recorded times minus the first one.
/// When any point lacks a time, the whole route is timed at `SimulatedRoute.nominalSpeed` (1.4 m/s,
/// walking pace) along the geodesics between points, with at least `minimumStep` (1 s) between two
/// points, so that a file of bare coordinates still replays like someone walking it.
public struct SimulatedRoute: Sendable, Hashable {
    /// Pace for routes without times, metres per second.
    public static let nominalSpeed = 1.4
    /// Smallest gap between two untimed points, seconds.
    public static let minimumStep = 1.0

    public let name: String
    public let points: [RoutePoint]
    /// Seconds from the first point at recorded pace, one per point, non-decreasing, first is 0.
    public let offsets: [Double]
    /// The first point's recorded time when every point has one; nil for a route timed at walking pace.
    public let recordedStart: Date?

    /// - Parameter points: at least one point. Recorded times must not decrease (the GPX parser
    ///   checks this); if they do anyway, offsets are clamped so they never decrease.
    public init(name: String, points: [RoutePoint]) {
        self.name = name
        self.points = points
        self.offsets = Self.offsets(for: points)
        self.recordedStart = points.allSatisfy { $0.time != nil } ? points.first?.time : nil
    }

    /// Seconds from the first point to the last, at recorded pace.
    public var duration: Double { offsets.last ?? 0 }

    private static func offsets(for points: [RoutePoint]) -> [Double] {
        guard let first = points.first else { return [] }
        if let start = first.time, points.allSatisfy({ $0.time != nil }) {
            var last = 0.0
            return points.map { point in
                last = max(last, point.time.map { $0.timeIntervalSince(start) } ?? last)
                return last
            }
        }
        var result = [0.0]
        result.reserveCapacity(points.count)
        for (previous, point) in zip(points, points.dropFirst()) {
            let distance = Geodesic.wgs84.inverse(
                latitude1: previous.latitude, longitude1: previous.longitude,
                latitude2: point.latitude, longitude2: point.longitude
            ).distance
            result.append((result.last ?? 0) + max(minimumStep, distance / nominalSpeed))
        }
        return result
    }
}

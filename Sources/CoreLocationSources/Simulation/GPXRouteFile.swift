import Foundation
import CoreLocationGeodesy

/// A GPX file to replay without holding its points (issue 20 item 2): what a first, streaming pass
/// over the file found, and a fresh `RouteStream` of its points for each replay.
///
/// The first pass reads the whole file as `GPXParser.forEachPoint` does (so every `GPXError` is
/// reported before anything plays) and keeps only counts: the number of points, whether every point
/// has a time, the first time and the duration at recorded pace — the timing rule of
/// `SimulatedRoute` (recorded times, else walking pace along the geodesics). Memory does not depend on
/// the file's length (track points are streamed; `rtept`/`wpt`, used only without a track, are kept
/// by the parser until its end).
public struct GPXRouteFile: Sendable, Hashable {
    public let path: String
    /// The file's name without its extension.
    public let name: String
    /// Points in the file.
    public let count: Int
    /// The first point's time when every point has one; nil for a route timed at walking pace.
    public let recordedStart: Date?
    /// Seconds from the first point to the last at recorded pace.
    public let duration: Double

    /// Reads the file once, as a stream.
    /// - Throws: `FileProblem` when the path cannot be read as a file, `GPXError` for the document.
    public static func scan(path: String) throws -> GPXRouteFile {
        var timing = RouteTiming()
        var count = 0
        var allTimed = true
        var firstTime: Date?
        var lastTime: Date?
        try GPXParser().forEachPoint(in: try FileProblem.openStream(path)) { point in
            count += 1
            if let time = point.time {
                if firstTime == nil { firstTime = time }
                lastTime = time
            } else {
                allTimed = false
            }
            _ = timing.untimedOffset(of: point)
        }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let timed = allTimed && count > 0
        let duration = timed ? max(0, (lastTime ?? .distantPast).timeIntervalSince(firstTime ?? .distantPast)) : timing.last
        return GPXRouteFile(
            path: path, name: name, count: count, recordedStart: timed ? firstTime : nil, duration: duration)
    }

    /// The file's points, read again as they are needed.
    public func makeStream() -> RouteStream { RouteStream(file: self) }
}

/// The timing rule of `SimulatedRoute`, one point at a time.
struct RouteTiming: Sendable {
    private var previous: RoutePoint?
    private(set) var last = 0.0

    /// Offset at walking pace: the previous offset plus max(1 s, geodesic / 1.4 m/s).
    mutating func untimedOffset(of point: RoutePoint) -> Double {
        defer { previous = point }
        guard let previous else { return 0 }
        let distance = Geodesic.wgs84.inverse(
            latitude1: previous.latitude, longitude1: previous.longitude,
            latitude2: point.latitude, longitude2: point.longitude
        ).distance
        last += max(SimulatedRoute.minimumStep, distance / SimulatedRoute.nominalSpeed)
        return last
    }

    /// Offset from recorded times: seconds since `start`, never decreasing.
    mutating func timedOffset(of point: RoutePoint, start: Date) -> Double {
        last = max(last, point.time.map { $0.timeIntervalSince(start) } ?? last)
        return last
    }
}

import Foundation

/// The points a `RoutePlayer` reads: a whole `SimulatedRoute`, or a `RouteStream` of which only the
/// points around the replay's position are held (the player only ever looks at the point it plays,
/// the one before and the one after).
struct RouteWindow: Sendable {
    let name: String
    let count: Int
    let duration: Double
    let recordedStart: Date?
    /// Whether the points are all in memory (only then can a replay loop).
    var isWhole: Bool { route != nil }

    private let route: SimulatedRoute?
    private let wholeKinematics: [RouteKinematics]
    private let stream: RouteStream?
    /// Streamed points with their offsets, from index `base`.
    private var points: [RoutePoint] = []
    private var offsets: [Double] = []
    private var base = 0
    private var timing = RouteTiming()

    /// Points kept behind the furthest one read before the window is trimmed.
    private static let slack = 4_096

    init(route: SimulatedRoute) {
        self.name = route.name
        self.count = route.points.count
        self.duration = route.duration
        self.recordedStart = route.recordedStart
        self.route = route
        self.wholeKinematics = route.points.indices.map(route.kinematics(at:))
        self.stream = nil
    }

    init(stream: RouteStream) {
        self.name = stream.file.name
        self.count = stream.file.count
        self.duration = stream.file.duration
        self.recordedStart = stream.file.recordedStart
        self.route = nil
        self.wholeKinematics = []
        self.stream = stream
    }

    /// Makes point `index` (0 ≤ index < count) readable by `point(_:)` and `offset(_:)`.
    mutating func load(_ index: Int) {
        guard let stream else { return }
        while base + points.count <= index, let point = stream.next() {
            let offset = recordedStart.map { timing.timedOffset(of: point, start: $0) } ?? timing.untimedOffset(of: point)
            points.append(point)
            offsets.append(offset)
        }
        if index - base > 2 * Self.slack {
            let drop = index - base - Self.slack
            points.removeFirst(drop)
            offsets.removeFirst(drop)
            base += drop
        }
    }

    /// Point `index`, loaded (a file that ended early repeats its last point).
    func point(_ index: Int) -> RoutePoint {
        if let route { return route.points[index] }
        return points[position(index)]
    }

    /// Recorded seconds from the first point to point `index`, loaded.
    func offset(_ index: Int) -> Double {
        if let route { return route.offsets[index] }
        return offsets[position(index)]
    }

    /// Speed and course at point `index` (`SimulatedRoute.kinematics(at:)`); loads its neighbours.
    mutating func kinematics(_ index: Int) -> RouteKinematics {
        if route != nil { return wholeKinematics[index] }
        guard count > 1 else { return SimulatedRoute.kinematics(of: point(index), segment: nil) }
        let forward = index + 1 < count
        let (a, b) = forward ? (index, index + 1) : (index - 1, index)
        load(b)
        return SimulatedRoute.kinematics(
            of: point(index), segment: (point(a), point(b), offset(b) - offset(a), forward))
    }

    private func position(_ index: Int) -> Int {
        min(max(0, index - base), max(0, points.count - 1))
    }
}

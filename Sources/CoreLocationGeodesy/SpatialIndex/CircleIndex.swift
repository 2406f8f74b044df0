#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Circles on the WGS84 ellipsoid, indexed to answer "which circles contain this point?" fast.
///
/// Method: the bulk of the circles lives in one uniform *grid* of square latitude/longitude cells
/// of `180 / 2^ℓ` degrees (`Grid`). A circle is copied into every cell its bounding box touches (at
/// most 3 × 3), so a query reads the copies of exactly one cell. The copies are 16-byte records
/// (fixed-point centre, Float32 radius, handle) kept in one linear-probing table keyed by cell, so
/// a query reads one short contiguous run of records and nothing else. The level ℓ is chosen at
/// each `compact()` from the circles themselves: the finest level whose cell is at least as wide
/// as the median circle, coarsened while the table would cost more than its memory budget.
///
/// Circles inserted since the last compaction, and circles too wide for the grid's cells, sit in
/// a multi-level *loose grid* (`LooseCells`, checked only when not empty); circles reaching a pole
/// sit in a short list checked on every query. Insertion compacts by itself once the recent
/// circles exceed a quarter of the grid.
///
/// Candidates are then decided exactly: the geodesic distance (Karney, `Geodesic.wgs84`) must be
/// at most the radius, boundary included. A local flat-earth distance decides first when it is
/// more than its error bound away from the radius (see `FlatTest`); otherwise the geodesic
/// decides, so answers equal a brute-force geodesic scan (tested).
///
/// Memory: 25 bytes per circle (centre, radius, place) plus the grid's table, kept under
/// `Grid.budget` bytes per circle by the level choice (see `estimatedBytes`; 96 bytes per circle in
/// all for 10^6 circles of 100–300 m in a 4° × 4° box).
public struct CircleIndex: Sendable {
    /// Names a circle in the index; handles of removed circles are reused.
    public typealias Handle = UInt32

    /// A circle as given (longitude normalized to [−180, 180)): what the exact test reads.
    struct Circle: Sendable {
        var latitude: Double
        var longitude: Double
        var radius: Double
    }

    /// Where a handle's circle is kept.
    enum Place: UInt8, Sendable {
        case free, grid, loose, polar
    }

    /// Handle → circle and place.
    private var circles: [Circle] = []
    private var places: [Place] = []
    private var freeHandles: [UInt32] = []
    private var grid = Grid()
    private var loose = LooseCells()
    /// Circles inserted into `loose` since the last compaction.
    private var recentCount = 0
    private var polar: [UInt32] = []

    /// The number of circles in the index.
    public private(set) var count = 0

    public init() {}

    /// Reserves room for `capacity` circles, so bulk loading does not regrow the handle table.
    public mutating func reserveCapacity(_ capacity: Int) {
        circles.reserveCapacity(capacity)
        places.reserveCapacity(capacity)
    }

    /// Adds a circle; returns its handle, or nil when the centre or radius is unusable
    /// (non-finite, latitude outside [−90, 90], radius negative or above 10 000 km).
    public mutating func insert(latitude: Double, longitude: Double, radius: Double) -> Handle? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, radius.isFinite, radius >= 0,
            radius <= 10_000_000
        else { return nil }
        let circle = Circle(latitude: latitude, longitude: Self.normalizedLongitude(longitude), radius: radius)
        let handle: UInt32
        if let reused = freeHandles.popLast() {
            handle = reused
            circles[Int(handle)] = circle
        } else {
            guard circles.count < Int(Grid.empty) else { return nil }
            handle = UInt32(circles.count)
            circles.append(circle)
            places.append(.free)
        }
        if let extent = Self.extent(circle), loose.insert(handle, circle, extent) {
            places[Int(handle)] = .loose
            recentCount += 1
            if recentCount > max(4096, grid.liveCount / 4) { compact() }
        } else {
            places[Int(handle)] = .polar
            polar.append(handle)
        }
        count += 1
        return handle
    }

    /// Removes a circle; a handle that is not in the index is ignored. Rebuilds the grid once
    /// more of its circles have been removed than remain (and over 4096).
    public mutating func remove(_ handle: Handle) {
        let i = Int(handle)
        guard i < places.count else { return }
        switch places[i] {
        case .free: return
        case .polar: polar.removeAll { $0 == handle }
        case .loose:
            if let extent = Self.extent(circles[i]) { loose.remove(handle, circles[i], extent) }
        case .grid:
            if let extent = Self.extent(circles[i]) { grid.remove(handle, circles[i], extent) }
        }
        places[i] = .free
        freeHandles.append(handle)
        count -= 1
        if grid.removedCount > max(4096, grid.liveCount) { compact() }
    }

    /// The centre (degrees) and radius (metres) of a circle, nil for an unknown handle.
    public func circle(_ handle: Handle) -> (latitude: Double, longitude: Double, radius: Double)? {
        let i = Int(handle)
        guard i < places.count, places[i] != .free else { return nil }
        return (circles[i].latitude, circles[i].longitude, circles[i].radius)
    }

    /// Rebuilds the grid from every circle not at a pole, choosing its cell size anew (done
    /// automatically once recent insertions exceed a quarter of the grid; call it after a bulk
    /// load so queries read one cell each).
    public mutating func compact() {
        var handles: [UInt32] = []
        var extents: [Extent] = []
        handles.reserveCapacity(count)
        extents.reserveCapacity(count)
        for i in places.indices where places[i] == .grid || places[i] == .loose {
            guard let extent = Self.extent(circles[i]) else { continue }
            handles.append(UInt32(i))
            extents.append(extent)
        }
        grid = Grid()
        loose = LooseCells()
        recentCount = 0
        let rejected = grid.build(handles: handles, extents: extents, circles: circles)
        for i in handles.indices { places[Int(handles[i])] = .grid }
        for j in rejected {
            let handle = handles[j]
            if loose.insert(handle, circles[Int(handle)], extents[j]) {
                places[Int(handle)] = .loose
            } else {
                places[Int(handle)] = .polar
                polar.append(handle)
            }
        }
    }

    /// Appends to `result` the handle of every circle containing the point (geodesic distance ≤
    /// radius), in no particular order. A non-finite or out-of-range point finds nothing.
    public func circles(containingLatitude latitude: Double, longitude: Double, into result: inout [Handle]) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return }
        let point = FlatTest.Point(latitude: latitude, longitude: Self.normalizedLongitude(longitude))
        circles.withUnsafeBufferPointer { circles in
            grid.query(point, circles, into: &result)
            if !loose.isEmpty { loose.query(point, circles, into: &result) }
            for handle in polar where Self.contains(circles[Int(handle)], point) { result.append(handle) }
        }
    }

    /// Bytes held by the index's storage, counted from capacities: the handle tables (circle,
    /// place), the grid's records and hash table, the loose cells (hash buckets, array headers
    /// and handles), the polar and free lists.
    public var estimatedBytes: Int {
        circles.capacity * MemoryLayout<Circle>.stride + places.capacity * MemoryLayout<Place>.stride
            + freeHandles.capacity * 4 + polar.capacity * 4 + grid.estimatedBytes + loose.estimatedBytes
    }

    // MARK: Geometry

    /// Whether the circle contains the point: the flat test when it decides, else the geodesic.
    @inline(__always)
    static func contains(_ circle: Circle, _ point: FlatTest.Point) -> Bool {
        var dLon = point.longitude - circle.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        switch point.decide(dLatitude: point.latitude - circle.latitude, dLongitude: dLon, radius: circle.radius) {
        case .inside: return true
        case .outside: return false
        case .unsure: return exactlyContains(circle, point)
        }
    }

    /// The exact test: geodesic distance ≤ radius.
    static func exactlyContains(_ circle: Circle, _ point: FlatTest.Point) -> Bool {
        Geodesic.wgs84.inverse(
            latitude1: circle.latitude, longitude1: circle.longitude,
            latitude2: point.latitude, longitude2: point.longitude
        ).distance <= circle.radius
    }

    static let a = 6_378_137.0
    static let e2 = (1 / 298.257223563) * (2 - 1 / 298.257223563)
    /// Metres per degree of latitude, a lower bound: the meridional radius of curvature is least at
    /// the equator, a(1 − e²) = 6 335 439 m, i.e. 110 574 m per degree, rounded down.
    static let metresPerDegreeLatitude = 110_500.0

    /// The longitude in [−180, 180); one already there is returned as it is (no `fmod`).
    static func normalizedLongitude(_ longitude: Double) -> Double {
        if longitude >= -180 && longitude < 180 { return longitude }
        var lon = fmod(longitude + 180, 360)
        if lon < 0 { lon += 360 }
        return lon - 180
    }

    /// Half-extents (degrees) of a box around a circle that holds every point within its radius.
    struct Extent: Sendable {
        var halfLatitude: Double
        var halfLongitude: Double
        var width: Double { 2 * max(halfLatitude, halfLongitude) }
    }

    /// The bounding box of a circle, or nil when it reaches a pole (or spans more than 180° of
    /// longitude). Proof: along any path of length ≤ r, ds ≥ M dφ ≥ a(1 − e²) dφ, so every point
    /// within r of the centre is within r / 110 500 m of its latitude; and ds ≥ N cos φ dλ ≥
    /// a cos(φ_max) dλ on the path, whose latitude stays in that band, which bounds the longitude.
    /// Both get a 2 % margin and 1e-9° so floating rounding at a cell edge cannot lose a point.
    static func extent(_ circle: Circle) -> Extent? {
        let halfLat = circle.radius / metresPerDegreeLatitude * 1.02 + 1e-9
        let poleward = abs(circle.latitude) + halfLat
        guard poleward < 89.9 else { return nil }
        let parallel = a * cos(poleward * Double.pi / 180) * Double.pi / 180
        let halfLon = circle.radius / parallel * 1.02 + 1e-9
        guard halfLon < 90 else { return nil }
        return Extent(halfLatitude: halfLat, halfLongitude: halfLon)
    }
}

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Circles on the WGS84 ellipsoid, indexed to answer "which circles contain this point?" fast.
///
/// Method: a multi-level *loose grid* in latitude/longitude degrees. Level ℓ has square cells of
/// `180 / 2^ℓ` degrees. A circle goes, once, into the cell holding its centre at the finest level
/// whose cell is at least twice the circle's half-extent in both latitude and longitude (the
/// longitude half-extent is taken at the circle's most poleward latitude, on a sphere of the
/// equatorial radius, with a 2 % margin for the ellipsoid). A point inside such a circle lies within half a
/// cell of the centre on each axis, so a query needs only the 2 × 2 cells nearest the point at
/// each populated level. Circles around a pole go to a short list checked on every query.
///
/// Candidates are then checked exactly: the geodesic distance (Karney, `Geodesic.wgs84`) must be
/// at most the radius, boundary included. A local flat-earth distance decides first when it is
/// more than its error bound away from the radius (see `contains`); otherwise the geodesic
/// decides, so answers equal a brute-force geodesic scan (tested).
///
/// Memory: each cell stores its circles inline (32 bytes each) so a query reads them
/// contiguously; plus 8 bytes per handle and one hash entry per occupied cell (see
/// `estimatedBytes`; about 60 bytes per circle at 10^6 circles).
public struct CircleIndex: Sendable {
    /// Names a circle in the index; handles of removed circles are reused.
    public typealias Handle = UInt32

    /// A circle as a cell stores it: inline, so a query reads its candidates contiguously.
    struct Record: Sendable {
        var latitude: Double
        var longitude: Double
        var radius: Double
        var handle: UInt32
    }

    static let levels = 24
    static let freeKey = UInt64.max
    static let polarKey = UInt64.max - 1

    /// Recent insertions: cell key → the circles whose centre lies in that cell (at its level).
    private var cells: [UInt64: [Record]] = [:]
    private var cellsCount = 0
    /// The compacted bulk: records sorted by cell key, found through an open-addressing table.
    private var frozen = FrozenCells()
    /// Handle → cell key (`freeKey` for a free handle, `polarKey` for the polar list).
    private var keys: [UInt64] = []
    private var levelCounts = [Int](repeating: 0, count: CircleIndex.levels)
    private var polar: [Record] = []
    private var freeHandles: [UInt32] = []

    /// The number of circles in the index.
    public private(set) var count = 0

    public init() {}

    /// Reserves room for `capacity` circles, so bulk loading does not regrow the handle table.
    public mutating func reserveCapacity(_ capacity: Int) {
        keys.reserveCapacity(capacity)
    }

    /// Adds a circle; returns its handle, or nil when the centre or radius is unusable
    /// (non-finite, latitude outside [−90, 90], radius negative or above 10 000 km).
    public mutating func insert(latitude: Double, longitude: Double, radius: Double) -> Handle? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, radius.isFinite, radius >= 0,
            radius <= 10_000_000
        else { return nil }
        let lon = Self.normalizedLongitude(longitude)
        let handle: UInt32
        if let reused = freeHandles.popLast() {
            handle = reused
        } else {
            guard keys.count < Int(UInt32.max - 1) else { return nil }
            handle = UInt32(keys.count)
            keys.append(Self.freeKey)
        }
        let record = Record(latitude: latitude, longitude: lon, radius: radius, handle: handle)
        if let (level, key) = Self.cell(latitude: latitude, longitude: lon, radius: radius) {
            keys[Int(handle)] = key
            cells[key, default: []].append(record)
            cellsCount += 1
            levelCounts[level] += 1
            if cellsCount > max(4096, frozen.liveCount / 4) { compact() }
        } else {
            keys[Int(handle)] = Self.polarKey
            polar.append(record)
        }
        count += 1
        return handle
    }

    /// Removes a circle; a handle that is not in the index is ignored.
    public mutating func remove(_ handle: Handle) {
        let i = Int(handle)
        guard i < keys.count, keys[i] != Self.freeKey else { return }
        let key = keys[i]
        if key == Self.polarKey {
            polar.removeAll { $0.handle == handle }
        } else {
            var removedRecent = false
            if var records = cells.removeValue(forKey: key) {
                if let position = records.firstIndex(where: { $0.handle == handle }) {
                    records.swapAt(position, records.count - 1)
                    records.removeLast()
                    cellsCount -= 1
                    removedRecent = true
                }
                if !records.isEmpty { cells[key] = records }
            }
            if !removedRecent { frozen.remove(handle, key: key) }
            levelCounts[Int(key >> 58)] -= 1
        }
        keys[i] = Self.freeKey
        freeHandles.append(handle)
        count -= 1
    }

    /// The centre (degrees) and radius (metres) of a circle, nil for an unknown handle.
    public func circle(_ handle: Handle) -> (latitude: Double, longitude: Double, radius: Double)? {
        let i = Int(handle)
        guard i < keys.count, keys[i] != Self.freeKey else { return nil }
        let records = keys[i] == Self.polarKey ? polar : (cells[keys[i]] ?? []) + frozen.records(keys[i])
        return records.first { $0.handle == handle }.map { ($0.latitude, $0.longitude, $0.radius) }
    }

    /// Moves the recent insertions into the compact sorted layout (done automatically once they
    /// exceed a quarter of it; call it after a bulk load so queries read contiguous memory).
    public mutating func compact() {
        guard cellsCount > 0 else { return }
        var recent: [(UInt64, Record)] = []
        recent.reserveCapacity(cellsCount)
        for (key, records) in cells {
            for record in records { recent.append((key, record)) }
        }
        frozen.merge(recent)
        cells = [:]
        cellsCount = 0
    }

    /// Appends to `result` the handle of every circle containing the point (geodesic distance ≤
    /// radius), in no particular order. A non-finite or out-of-range point finds nothing.
    public func circles(containingLatitude latitude: Double, longitude: Double, into result: inout [Handle]) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return }
        let lon = Self.normalizedLongitude(longitude)
        let scale = LocalScale(latitude: latitude)
        for record in polar where Self.contains(record, latitude, lon, scale) { result.append(record.handle) }
        for level in 0..<Self.levels where levelCounts[level] > 0 {
            let size = Self.cellDegrees(level)
            let rows = 1 << level
            let columns = rows << 1
            let y = (latitude + 90) / size
            let x = (lon + 180) / size
            let row = min(Int(y), rows - 1)
            let column = min(Int(x), columns - 1)
            let otherRow = y - Double(row) < 0.5 ? row - 1 : row + 1
            var otherColumn = x - Double(column) < 0.5 ? column - 1 : column + 1
            if otherColumn < 0 { otherColumn += columns } else if otherColumn >= columns { otherColumn -= columns }
            for rowPick in 0..<2 {
                let r = rowPick == 0 ? row : otherRow
                guard r >= 0 && r < rows else { continue }
                for columnPick in 0..<2 {
                    let key = Self.key(level: level, row: r, column: columnPick == 0 ? column : otherColumn)
                    frozen.forEach(key) { record in
                        if Self.contains(record, latitude, lon, scale) { result.append(record.handle) }
                    }
                    guard cellsCount > 0, let records = cells[key] else { continue }
                    for record in records where Self.contains(record, latitude, lon, scale) {
                        result.append(record.handle)
                    }
                }
            }
        }
    }

    /// Bytes held by the index's storage, counted from capacities: each cell's record array
    /// (32 bytes of header plus its capacity × 32), the hash of cells (key, reference and one
    /// byte of metadata per bucket), the handle table, the polar and free lists.
    public var estimatedBytes: Int {
        var bytes = cells.capacity * (8 + 8 + 1) + frozen.estimatedBytes
        for records in cells.values {
            bytes += 32 + records.capacity * MemoryLayout<Record>.stride
        }
        return bytes + keys.capacity * 8 + polar.capacity * MemoryLayout<Record>.stride + freeHandles.capacity * 4
    }

    // MARK: Geometry

    /// Metres per degree of latitude and of longitude at the query point (ellipsoidal radii of
    /// curvature M and N cos φ).
    struct LocalScale {
        var north: Double
        var east: Double
        var usable: Bool

        init(latitude: Double) {
            let phi = latitude * Double.pi / 180
            let s = sin(phi)
            let w = (1 - CircleIndex.e2 * s * s).squareRoot()
            north = Double.pi / 180 * CircleIndex.a * (1 - CircleIndex.e2) / (w * w * w)
            east = Double.pi / 180 * CircleIndex.a / w * cos(phi)
            usable = abs(latitude) < 80
        }
    }

    /// Whether the circle contains the point. Below 10 km and 80° latitude a local flat-earth
    /// distance at the point's own scale decides when it is clear of the radius by its error bound
    /// (2 % + 0.5 m: the meridians' convergence over ≤ 10 km at ≤ 80° is < 1 %); otherwise the
    /// geodesic decides.
    static func contains(_ record: Record, _ latitude: Double, _ longitude: Double, _ scale: LocalScale) -> Bool {
        if scale.usable {
            var dLon = longitude - record.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let dy = (latitude - record.latitude) * scale.north
            let dx = dLon * scale.east
            let flat2 = dx * dx + dy * dy
            if flat2 < 1e8 {
                let flat = flat2.squareRoot()
                let bound = 0.02 * flat + 0.5
                if flat + bound < record.radius { return true }
                if flat - bound > record.radius { return false }
            } else if record.radius < 5_000 {
                return false  // ≥ 10 km away (flat error < 1 % there too) from a circle under 5 km
            }
        }
        let d = Geodesic.wgs84.inverse(
            latitude1: record.latitude, longitude1: record.longitude, latitude2: latitude, longitude2: longitude
        )
        return d.distance <= record.radius
    }

    static let a = 6_378_137.0
    static let e2 = (1 / 298.257223563) * (2 - 1 / 298.257223563)
    /// Metres per degree of latitude, a lower bound (the meridional arc at the equator, 110 574 m,
    /// rounded down).
    static let metresPerDegreeLatitude = 110_500.0

    static func cellDegrees(_ level: Int) -> Double { 180 / Double(1 << level) }

    static func normalizedLongitude(_ longitude: Double) -> Double {
        var lon = fmod(longitude + 180, 360)
        if lon < 0 { lon += 360 }
        return lon - 180
    }

    static func key(level: Int, row: Int, column: Int) -> UInt64 {
        UInt64(level) << 58 | UInt64(row) << 29 | UInt64(column)
    }

    /// The level and cell key of a circle, or nil when it reaches a pole (or is too wide for level 0).
    static func cell(latitude: Double, longitude: Double, radius: Double) -> (Int, UInt64)? {
        let halfLat = radius / metresPerDegreeLatitude * 1.02 + 1e-9
        let poleward = abs(latitude) + halfLat
        guard poleward < 89.9 else { return nil }
        let parallel = a * cos(poleward * Double.pi / 180) * Double.pi / 180
        let halfLon = radius / parallel * 1.02 + 1e-9
        let extent = 2 * max(halfLat, halfLon)
        guard extent <= cellDegrees(0) else { return nil }
        var level = 0
        while level + 1 < levels && cellDegrees(level + 1) >= extent { level += 1 }
        let size = cellDegrees(level)
        let rows = 1 << level
        let row = min(Int((latitude + 90) / size), rows - 1)
        let column = min(Int((longitude + 180) / size), 2 * rows - 1)
        return (level, key(level: level, row: row, column: column))
    }
}

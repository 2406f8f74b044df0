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
/// more than its error bound (0.5 % + 0.5 m, used below 100 km and 80° latitude only) away from
/// the radius; otherwise the geodesic decides, so answers equal a brute-force geodesic scan.
///
/// Memory: 36 bytes per circle in flat arrays plus one hash entry per occupied cell
/// (see `estimatedBytes`). Cells chain their circles through `next`, so no per-cell arrays exist.
public struct CircleIndex: Sendable {
    /// Names a circle in the index; handles of removed circles are reused.
    public typealias Handle = UInt32

    static let levels = 24
    static let none = UInt32.max
    static let freeKey = UInt64.max
    static let polarKey = UInt64.max - 1

    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    private var radii: [Double] = []
    private var keys: [UInt64] = []
    private var next: [UInt32] = []
    private var heads: [UInt64: UInt32] = [:]
    private var levelCounts = [Int](repeating: 0, count: CircleIndex.levels)
    private var polar: [UInt32] = []
    private var freeHandles: [UInt32] = []

    /// The number of circles in the index.
    public private(set) var count = 0

    public init() {}

    /// Reserves room for `capacity` circles, so bulk loading does not regrow the arrays.
    public mutating func reserveCapacity(_ capacity: Int) {
        latitudes.reserveCapacity(capacity)
        longitudes.reserveCapacity(capacity)
        radii.reserveCapacity(capacity)
        keys.reserveCapacity(capacity)
        next.reserveCapacity(capacity)
        heads.reserveCapacity(capacity)
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
            let i = Int(handle)
            latitudes[i] = latitude
            longitudes[i] = lon
            radii[i] = radius
        } else {
            guard latitudes.count < Int(UInt32.max - 1) else {
                return nil
            }
            handle = UInt32(latitudes.count)
            latitudes.append(latitude)
            longitudes.append(lon)
            radii.append(radius)
            keys.append(Self.freeKey)
            next.append(Self.none)
        }
        let i = Int(handle)
        if let (level, key) = Self.cell(latitude: latitude, longitude: lon, radius: radius) {
            keys[i] = key
            next[i] = heads[key] ?? Self.none
            heads[key] = handle
            levelCounts[level] += 1
        } else {
            keys[i] = Self.polarKey
            next[i] = Self.none
            polar.append(handle)
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
            polar.removeAll { $0 == handle }
        } else {
            var previous = Self.none
            var current = heads[key] ?? Self.none
            while current != Self.none, current != handle {
                previous = current
                current = next[Int(current)]
            }
            if current == handle {
                if previous == Self.none {
                    let following = next[i]
                    heads[key] = following == Self.none ? nil : following
                } else {
                    next[Int(previous)] = next[i]
                }
            }
            levelCounts[Int(key >> 58)] -= 1
        }
        keys[i] = Self.freeKey
        next[i] = Self.none
        freeHandles.append(handle)
        count -= 1
    }

    /// The centre (degrees) and radius (metres) of a circle, nil for an unknown handle.
    public func circle(_ handle: Handle) -> (latitude: Double, longitude: Double, radius: Double)? {
        let i = Int(handle)
        guard i < keys.count, keys[i] != Self.freeKey else { return nil }
        return (latitudes[i], longitudes[i], radii[i])
    }

    /// Appends to `result` the handle of every circle containing the point (geodesic distance ≤
    /// radius), in no particular order. A non-finite or out-of-range point finds nothing.
    public func circles(containingLatitude latitude: Double, longitude: Double, into result: inout [Handle]) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return }
        let lon = Self.normalizedLongitude(longitude)
        for handle in polar where contains(handle, latitude, lon) { result.append(handle) }
        for level in 0..<Self.levels where levelCounts[level] > 0 {
            let size = Self.cellDegrees(level)
            let rows = 1 << level
            let columns = rows << 1
            let y = (latitude + 90) / size, x = (lon + 180) / size
            let row = min(Int(y), rows - 1), column = min(Int(x), columns - 1)
            let otherRow = y - Double(row) < 0.5 ? row - 1 : row + 1
            var otherColumn = x - Double(column) < 0.5 ? column - 1 : column + 1
            if otherColumn < 0 { otherColumn += columns } else if otherColumn >= columns { otherColumn -= columns }
            for r in [row, otherRow] where r >= 0 && r < rows {
                for c in [column, otherColumn] {
                    var current = heads[Self.key(level: level, row: r, column: c)] ?? Self.none
                    while current != Self.none {
                        if contains(current, latitude, lon) { result.append(current) }
                        current = next[Int(current)]
                    }
                }
            }
        }
    }

    /// Bytes held by the index's storage, counted from capacities: the five per-circle arrays,
    /// the hash of cell heads (key, value and one byte of metadata per bucket), the polar list
    /// and the free list.
    public var estimatedBytes: Int {
        let perCircle = latitudes.capacity * 8 + longitudes.capacity * 8 + radii.capacity * 8 + keys.capacity * 8
            + next.capacity * 4
        let hash = heads.capacity * (8 + 4) + heads.capacity / 3 * 4 + heads.capacity
        return perCircle + hash + polar.capacity * 4 + freeHandles.capacity * 4
    }

    // MARK: Geometry

    private func contains(_ handle: UInt32, _ latitude: Double, _ longitude: Double) -> Bool {
        let i = Int(handle)
        let radius = radii[i]
        let lat0 = latitudes[i], lon0 = longitudes[i]
        if abs(lat0) < 80 && abs(latitude) < 80 {
            var dLon = longitude - lon0
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let meanLat = (lat0 + latitude) * 0.5 * Double.pi / 180
            let s = sin(meanLat)
            let w = (1 - Self.e2 * s * s).squareRoot()
            let north = (latitude - lat0) * Double.pi / 180 * Self.a * (1 - Self.e2) / (w * w * w)
            let eastward = dLon * Double.pi / 180 * Self.a / w * cos(meanLat)
            let flat = (north * north + eastward * eastward).squareRoot()
            if flat < 100_000 {
                let bound = 0.005 * flat + 0.5
                if flat + bound < radius { return true }
                if flat - bound > radius { return false }
            }
        }
        let d = Geodesic.wgs84.inverse(latitude1: lat0, longitude1: lon0, latitude2: latitude, longitude2: longitude)
        return d.distance <= radius
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

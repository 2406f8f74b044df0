#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// EGM96 geoid heights: how far the geoid (≈ mean sea level) lies above the WGS84 ellipsoid.
///
/// Ellipsoidal height = height above mean sea level + N. Data: the 15′ EGM96 grid that PROJ ships as
/// `egm96_15.gtx` (NGA/NASA, public domain), embedded whole, rounded to centimetres
/// (`scripts/geoid-extract.py`). Method: bilinear interpolation between the four surrounding grid
/// nodes, as PROJ's `vgridshift` does with the same grid, wrapping in longitude.
///
/// Accuracy: within 5 mm of PROJ with the same grid everywhere (the centimetre rounding; measured
/// over 10^6 random points in `Benchmarks/geoid`). EGM96 itself is good to about ±1 m against the true
/// geoid in most places (NGA), worse in poorly surveyed mountains.
///
/// Cost: the grid (1 038 240 values, 2 MB in memory) is decoded on first use, a few milliseconds; each
/// look-up afterwards is a handful of multiplications.
public enum EGM96Geoid {
    /// Geoid height N in metres at a geodetic latitude and longitude in degrees.
    ///
    /// - Parameters:
    ///   - latitude: degrees, in [-90, 90].
    ///   - longitude: degrees east, any finite value.
    /// - Returns: N in metres (about −107 to +85), or NaN when an input is NaN, infinite or the
    ///   latitude is out of range. Never traps.
    public static func geoidHeight(latitude: Double, longitude: Double) -> Double {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, let grid = decodedGrid else {
            return .nan
        }
        var lon = remainder(longitude - west, 360)
        if lon < 0 { lon += 360 }
        let y = (latitude - south) / spacing
        let x = lon / spacing
        let row = min(Int(y), rows - 2)
        let column = min(Int(x), columns - 1)
        let fy = y - Double(row)
        let fx = x - Double(column)
        let east = column + 1 == columns ? 0 : column + 1
        return grid.withUnsafeBufferPointer { cells in
            let south0 = row * columns
            let north0 = south0 + columns
            let sw = Double(cells[south0 + column])
            let se = Double(cells[south0 + east])
            let nw = Double(cells[north0 + column])
            let ne = Double(cells[north0 + east])
            let southern = sw + (se - sw) * fx
            let northern = nw + (ne - nw) * fx
            return (southern + (northern - southern) * fy) / 100
        }
    }

    /// Whether the embedded grid decoded (it always should; a corrupt build makes every look-up NaN).
    public static var isAvailable: Bool { decodedGrid != nil }

    /// The grid in centimetres, rows south → north, columns west → east; nil if the data is corrupt.
    static let decodedGrid: [Int16]? = decodeGrid()
}

/// Geoid height N (metres) of EGM96 at a latitude and longitude in degrees; see
/// `EGM96Geoid.geoidHeight(latitude:longitude:)`. Ellipsoidal height = MSL height + N.
public func geoidHeight(latitude: Double, longitude: Double) -> Double {
    EGM96Geoid.geoidHeight(latitude: latitude, longitude: longitude)
}

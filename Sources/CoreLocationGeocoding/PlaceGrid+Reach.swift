import Foundation

extension PlaceGrid {
    /// One bit per cell: set when some place's locality reach (`Gazetteer.localityReach`) may include a point of
    /// the cell. A point in a clear cell has no locality candidate at all, so the look-up skips the window scan
    /// (deserts, tundra, ice: most land points without a locality).
    ///
    /// Conservative: a place marks every cell of the latitude band its reach spans and, in longitude, of the span
    /// its reach has at the band's highest |latitude| (the equirectangular distance is taken at the query's
    /// latitude, so the span widens poleward); a margin of 0.1 % + 2 µ° covers rounding. Longitude wraps.
    static func reachMask(latitude: [Int32], longitude: [Int32], reach: [Double]) -> [UInt64] {
        var mask = [UInt64](repeating: 0, count: (rows * columns + 63) / 64)
        for index in latitude.indices {
            let reachMicro = reach[index] / Gazetteer.metresPerDegree * 1e6 * 1.001 + 2
            let lat = Double(latitude[index]), lon = Double(longitude[index])
            let south = max(-90e6, lat - reachMicro), north = min(90e6, lat + reachMicro)
            let highest = min(90e6, max(abs(south), abs(north)))
            let cosine = cos(highest / 1e6 * .pi / 180)
            let firstRow = row(Int32(south.rounded(.down))), lastRow = row(Int32(north.rounded(.up)))
            var firstColumn = 0, count = columns
            if cosine > 1e-6, reachMicro / cosine < 179e6 {
                let span = reachMicro / cosine
                firstColumn = Int((((lon - span).rounded(.down) + 180e6) / Double(cellSize)).rounded(.down))
                let lastColumn = Int((((lon + span).rounded(.up) + 180e6) / Double(cellSize)).rounded(.down))
                count = min(columns, lastColumn - firstColumn + 1)
            }
            for r in firstRow...lastRow {
                for k in 0..<count {
                    let column = ((firstColumn + k) % columns + columns) % columns
                    let cell = r * columns + column
                    mask[cell >> 6] |= 1 << UInt64(cell & 63)
                }
            }
        }
        return mask
    }

    /// Whether some place's reach may include a point of this point's cell (`reachMask`).
    @inline(__always)
    func mayReach(latitude: Int32, longitude: Int32) -> Bool {
        let cell = Self.cell(row: Self.row(latitude), column: Self.column(longitude))
        return reachable[cell >> 6] & (1 << UInt64(cell & 63)) != 0
    }
}

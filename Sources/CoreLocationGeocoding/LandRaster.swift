/// The country of every 0.1° cell that no polygon edge touches, from `gazetteer.bin`'s LAND section (built by
/// `scripts/gazetteer-land.py`): a point in such a cell has the answer the polygon test would give, without
/// running it. Cells an edge touches (coasts and borders, 2.3 % of the cells) say "test".
///
/// The section is run-length coded by row (194 kB); in memory it is one byte per cell (6.2 MiB), so a look-up
/// is one load. Values: 0 sea, 1 test, k + 2 country k.
struct LandRaster: Sendable {
    static let sea: UInt8 = 0
    static let test: UInt8 = 1
    static let rows = 1_800
    static let columns = 3_600
    static let cellSize: Int64 = 100_000  // microdegrees

    let cells: [UInt8]

    /// What the raster says about a cell.
    enum Answer: Equatable {
        case sea
        case country(Int)
        case test
    }

    init(_ reader: ByteReader, countryCount: Int) throws(GeocodingError) {
        var reader = reader
        let rows = try reader.varint(), columns = try reader.varint(), size = try reader.varint()
        guard rows == UInt64(Self.rows), columns == UInt64(Self.columns), size == UInt64(Self.cellSize) else {
            throw GeocodingError(.resourceCorrupt, "land raster of \(rows) × \(columns) cells of \(size) µ°")
        }
        guard countryCount + 2 <= 256 else {
            throw GeocodingError(.resourceCorrupt, "the land raster holds at most 254 countries")
        }
        var cells = [UInt8](repeating: Self.test, count: Self.rows * Self.columns)
        var cell = 0
        for row in 0..<Self.rows {
            let end = (row + 1) * Self.columns
            while cell < end {
                let length = try reader.index(below: end - cell + 1)
                let value = try reader.index(below: countryCount + 2)
                guard length > 0 else { throw GeocodingError(.resourceCorrupt, "empty land raster run") }
                if value != Int(Self.test) {
                    cells.withUnsafeMutableBufferPointer { buffer in
                        buffer[cell..<cell + length].update(repeating: UInt8(value))
                    }
                }
                cell += length
            }
        }
        guard reader.isAtEnd else { throw GeocodingError(.resourceCorrupt, "land raster has trailing bytes") }
        self.cells = cells
    }

    /// The cell of a point in microdegrees (latitude 90° and longitude 180° fall in the last row and column,
    /// whose closed cells include them).
    @inline(__always)
    static func cell(latitude: Int32, longitude: Int32) -> Int {
        let row = min(rows - 1, max(0, Int((Int64(latitude) + 90_000_000) / cellSize)))
        let column = min(columns - 1, max(0, Int((Int64(longitude) + 180_000_000) / cellSize)))
        return row * columns + column
    }

    @inline(__always)
    func answer(latitude: Int32, longitude: Int32) -> Answer {
        Self.answer(cells[Self.cell(latitude: latitude, longitude: longitude)])
    }

    @inline(__always)
    static func answer(_ value: UInt8) -> Answer {
        switch value {
        case sea: .sea
        case test: .test
        default: .country(Int(value) - 2)
        }
    }
}

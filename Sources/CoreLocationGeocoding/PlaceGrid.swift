/// A 0.25° grid over the places, for nearest-place searches.
struct PlaceGrid: Sendable {
    static let cellSize: Int64 = 250_000  // microdegrees
    static let rows = 720
    static let columns = 1440

    /// Places in cell c are `order[start[c] ..< start[c + 1]]`.
    let start: [Int32]
    let order: [Int32]

    init(latitude: [Int32], longitude: [Int32]) {
        var counts = [Int32](repeating: 0, count: Self.rows * Self.columns + 1)
        var cells = [Int32](repeating: 0, count: latitude.count)
        for index in latitude.indices {
            let cell = Self.cell(row: Self.row(latitude[index]), column: Self.column(longitude[index]))
            cells[index] = Int32(cell)
            counts[cell + 1] += 1
        }
        for cell in 0..<Self.rows * Self.columns { counts[cell + 1] += counts[cell] }
        var fill = counts
        var order = [Int32](repeating: 0, count: latitude.count)
        for index in latitude.indices {
            let cell = Int(cells[index])
            order[Int(fill[cell])] = Int32(index)
            fill[cell] += 1
        }
        self.start = counts
        self.order = order
    }

    static func row(_ latitude: Int32) -> Int {
        min(rows - 1, max(0, Int((Int64(latitude) + 90_000_000) / cellSize)))
    }

    static func column(_ longitude: Int32) -> Int {
        min(columns - 1, max(0, Int((Int64(longitude) + 180_000_000) / cellSize)))
    }

    static func cell(row: Int, column: Int) -> Int { row * columns + column }

    /// Calls `body` with every place in the cells within `radius` cells of the point's cell (longitude wraps).
    func forEachPlace(nearLatitude latitude: Int32, longitude: Int32, radius: Int, _ body: (Int) -> Void) {
        let row = Self.row(latitude), column = Self.column(longitude)
        for r in max(0, row - radius)...min(Self.rows - 1, row + radius) {
            let span = min(radius, Self.columns / 2)
            for offset in -span...span {
                let c = (column + offset + Self.columns) % Self.columns
                let cell = Self.cell(row: r, column: c)
                for slot in Int(start[cell])..<Int(start[cell + 1]) { body(Int(order[slot])) }
            }
        }
    }

    /// The column offsets a window of half-width `columns` covers: all 1 440 columns once it reaches 720.
    static func columnOffsets(_ columns: Int) -> ClosedRange<Int> {
        columns < Self.columns / 2 ? -columns...columns : -(Self.columns / 2)...(Self.columns / 2 - 1)
    }

    /// Calls `body` with the places in the window of ±`rows` × ±`columns` cells around the point's cell
    /// that are not in the smaller window `inner` (nil: none), so growing windows visit each cell once.
    func forEachPlace(
        latitude: Int32, longitude: Int32, window: (rows: Int, columns: Int), excluding inner: (rows: Int, columns: Int)?,
        _ body: (Int) -> Void
    ) {
        let row = Self.row(latitude), column = Self.column(longitude)
        let outer = Self.columnOffsets(window.columns)
        let hole = inner.map { Self.columnOffsets($0.columns) }
        func visit(_ r: Int, _ offsets: ClosedRange<Int>) {
            for offset in offsets {
                let c = ((column + offset) % Self.columns + Self.columns) % Self.columns
                let cell = Self.cell(row: r, column: c)
                for slot in Int(start[cell])..<Int(start[cell + 1]) { body(Int(order[slot])) }
            }
        }
        for r in max(0, row - window.rows)...min(Self.rows - 1, row + window.rows) {
            guard let inner, let hole, abs(r - row) <= inner.rows else {
                visit(r, outer)
                continue
            }
            if outer.lowerBound < hole.lowerBound { visit(r, outer.lowerBound...(hole.lowerBound - 1)) }
            if hole.upperBound < outer.upperBound { visit(r, (hole.upperBound + 1)...outer.upperBound) }
        }
    }

    /// Calls `body` with the places in the cells meeting a latitude × longitude box (microdegrees; the
    /// longitude range may run past ±180°, it wraps).
    func forEachPlace(latitudes: ClosedRange<Int32>, longitudes: ClosedRange<Int32>, _ body: (Int) -> Void) {
        let firstRow = Self.row(latitudes.lowerBound), lastRow = Self.row(latitudes.upperBound)
        let low = Int((Int64(longitudes.lowerBound) + 180_000_000).floorDivided(by: Self.cellSize))
        let high = Int((Int64(longitudes.upperBound) + 180_000_000).floorDivided(by: Self.cellSize))
        let span = min(high - low, Self.columns - 1)
        for r in firstRow...lastRow {
            for step in 0...span {
                let c = ((low + step) % Self.columns + Self.columns) % Self.columns
                let cell = Self.cell(row: r, column: c)
                for slot in Int(start[cell])..<Int(start[cell + 1]) { body(Int(order[slot])) }
            }
        }
    }
}

extension Int64 {
    /// Division rounding toward −∞.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

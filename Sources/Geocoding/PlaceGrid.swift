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

    /// Calls `body` with the places in the ring of cells at exactly `radius` (Chebyshev) from the point's cell.
    func forEachPlace(onRingAround latitude: Int32, longitude: Int32, radius: Int, _ body: (Int) -> Void) {
        guard radius > 0 else {
            forEachPlace(nearLatitude: latitude, longitude: longitude, radius: 0, body)
            return
        }
        let row = Self.row(latitude), column = Self.column(longitude)
        let span = min(radius, Self.columns / 2)
        for r in max(0, row - radius)...min(Self.rows - 1, row + radius) {
            let edgeRow = r == row - radius || r == row + radius
            // Edge rows take the whole span; other rows only its two ends.
            let step = edgeRow ? 1 : max(1, 2 * span)
            for offset in stride(from: -span, through: span, by: step) {
                let c = ((column + offset) % Self.columns + Self.columns) % Self.columns
                let cell = Self.cell(row: r, column: c)
                for slot in Int(start[cell])..<Int(start[cell + 1]) { body(Int(order[slot])) }
            }
        }
    }
}

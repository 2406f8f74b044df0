/// A 0.25° grid over the places, for nearest-place searches.
struct PlaceGrid: Sendable {
    static let cellSize: Int64 = 250_000  // microdegrees
    static let rows = 720
    static let columns = 1440

    /// Places in cell c are `order[start[c] ..< start[c + 1]]`.
    let start: [Int32]
    let order: [Int32]
    /// Copies of each slot's place coordinates and country, in slot order, so that a window scan reads
    /// contiguous memory and rejects most places before touching the place arrays (see `forEachPlace(near:)`).
    let slotLatitude: [Int32]
    let slotLongitude: [Int32]
    let slotCountry: [Int32]
    /// The slot's place's reach in microdegrees of arc, squared: the farthest a query may be for the place to
    /// be a locality candidate (`Gazetteer.localityReach`), with a relative margin of 10⁻⁶ so rounding in the
    /// prefilter can never drop a candidate the exact test would keep.
    let slotReachSquared: [Double]
    /// The cells some place's reach may include (`reachMask`).
    let reachable: [UInt64]

    /// - Parameters: the places' coordinates (microdegrees), countries and locality reach (metres), by place.
    init(latitude: [Int32], longitude: [Int32], country: [Int32], reach: [Double]) {
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
        slotLatitude = order.map { latitude[Int($0)] }
        slotLongitude = order.map { longitude[Int($0)] }
        slotCountry = order.map { country[Int($0)] }
        reachable = Self.reachMask(latitude: latitude, longitude: longitude, reach: reach)
        slotReachSquared = order.map {
            let microdegrees = reach[Int($0)] / Gazetteer.metresPerDegree * 1e6
            return microdegrees * microdegrees * (1 + 1e-6)
        }
    }

    static func row(_ latitude: Int32) -> Int {
        min(rows - 1, max(0, Int((Int64(latitude) + 90_000_000) / cellSize)))
    }

    static func column(_ longitude: Int32) -> Int {
        min(columns - 1, max(0, Int((Int64(longitude) + 180_000_000) / cellSize)))
    }

    static func cell(row: Int, column: Int) -> Int { row * columns + column }

    /// Calls `body` with the slots of `count` (≤ 1 440) consecutive cells of row `row`, from column `first`
    /// (any integer; it wraps) eastward, in cell order. A row's cells are consecutive in `start`, so a run
    /// of cells that does not cross ±180° is one range of slots: empty cells cost nothing.
    @inline(__always)
    func forEachSlot(row: Int, first: Int, count: Int, _ body: (Int) -> Void) {
        let from = (first % Self.columns + Self.columns) % Self.columns
        let base = row * Self.columns
        let head = min(count, Self.columns - from)
        for slot in Int(start[base + from])..<Int(start[base + from + head]) { body(slot) }
        if count > head {
            for slot in Int(start[base])..<Int(start[base + count - head]) { body(slot) }
        }
    }

    /// Calls `body` with the places of `country` (nil: any) in the cells within `radius` cells of the point's
    /// cell (longitude wraps) that lie within their reach of the point, by the equirectangular distance at
    /// the query's latitude (`cosLat`), in slot order; the others are rejected without reading the place arrays.
    func forEachPlace(
        near latitude: Int32, longitude: Int32, radius: Int, country: Int32?, cosLat: Double, _ body: (Int) -> Void
    ) {
        let row = Self.row(latitude), column = Self.column(longitude)
        let y = Double(latitude), x = Double(longitude)
        let span = min(radius, Self.columns / 2)
        slotLatitude.withUnsafeBufferPointer { lats in
            slotLongitude.withUnsafeBufferPointer { lons in
                slotCountry.withUnsafeBufferPointer { countries in
                    slotReachSquared.withUnsafeBufferPointer { reach in
                        for r in max(0, row - radius)...min(Self.rows - 1, row + radius) {
                            forEachSlot(row: r, first: column - span, count: 2 * span + 1) { slot in
                                if let country, countries[slot] != country { return }
                                let dy = Double(lats[slot]) - y
                                var dxDegrees = Double(lons[slot]) - x
                                if dxDegrees > 180e6 { dxDegrees -= 360e6 } else if dxDegrees < -180e6 {
                                    dxDegrees += 360e6
                                }
                                let dx = dxDegrees * cosLat
                                if dx * dx + dy * dy > reach[slot] { return }
                                body(Int(order[slot]))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The column offsets a window of half-width `columns` covers: all 1 440 columns once it reaches 720.
    static func columnOffsets(_ columns: Int) -> ClosedRange<Int> {
        columns < Self.columns / 2 ? -columns...columns : -(Self.columns / 2)...(Self.columns / 2 - 1)
    }

    /// Calls `body` with the places of `country` (nil: any) in the window of ±`rows` × ±`columns` cells around
    /// the point's cell that are not in the smaller window `inner` (nil: none), so growing windows visit each
    /// cell once. The country is read from the slot copies, so other countries' places cost no random access.
    func forEachPlace(
        latitude: Int32, longitude: Int32, window: (rows: Int, columns: Int), excluding inner: (rows: Int, columns: Int)?,
        country: Int32?, _ body: (Int) -> Void
    ) {
        let row = Self.row(latitude), column = Self.column(longitude)
        let outer = Self.columnOffsets(window.columns)
        let hole = inner.map { Self.columnOffsets($0.columns) }
        func visit(_ r: Int, _ offsets: ClosedRange<Int>) {
            slotCountry.withUnsafeBufferPointer { countries in
                forEachSlot(row: r, first: column + offsets.lowerBound, count: offsets.count) { slot in
                    if let country, countries[slot] != country { return }
                    body(Int(order[slot]))
                }
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
            forEachSlot(row: r, first: low, count: span + 1) { body(Int(order[$0])) }
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

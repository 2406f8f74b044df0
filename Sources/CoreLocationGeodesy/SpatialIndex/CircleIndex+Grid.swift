extension CircleIndex {
    /// The compact bulk of the index: one uniform grid of square cells of `180 / 2^level` degrees;
    /// each circle is copied into every cell its bounding box (`Extent`) touches, so a query reads
    /// the copies of the one cell holding the point.
    ///
    /// Layout: one array, `slots`, of 16-byte records — the centre as fixed-point Int32 latitude
    /// and longitude (2^32 units per 360°, so a wrapping subtraction gives the longitude difference
    /// across ±180°), the radius as Float32 and the handle — used as a linear-probing hash table
    /// keyed by cell (multiplicative hash, load ≤ 3/4): a circle's copy for cell C sits at the first
    /// free slot at or after `home(C)`. A query scans from its cell's home to the first empty slot
    /// and tests every record on the way. Records of other cells met there are whole circles too, so
    /// testing them is harmless; only a circle met twice is reported once. Nothing but the records is
    /// read: no cell table, so a query costs about one cache miss plus a short sequential scan.
    /// Correctness rests on the linear-probing invariant: slots between a home and a copy stored from
    /// it are occupied, and stay so (a removed circle leaves tombstones until the next build).
    ///
    /// Rounding: fixed point is 8.4e-8° (≤ 1 cm) per coordinate, the query's rounding as much again;
    /// radii are below 160 km (the coarsest cells are 1.4°), so Float32 rounds them by ≤ 1 cm;
    /// `FlatTest` allows 5 cm. The exact geodesic test reads the Double circle.
    struct Grid: Sendable {
        struct Record: Sendable {
            var latitude: Int32
            var longitude: Int32
            var radius: Float32
            var handle: UInt32
        }

        /// Handles at or above `empty` are not circles: an empty slot ends a scan, a tombstone
        /// (removed circle) does not.
        static let empty = UInt32.max - 1
        static let tombstone = UInt32.max
        /// Fixed-point units per degree, and degrees per unit.
        static let unitsPerDegree = 4_294_967_296.0 / 360
        static let degreesPerUnit = 360 / 4_294_967_296.0
        /// The coarsest level (1.4° cells): keeps radii in the grid below 160 km.
        static let coarsest = 7
        /// The finest level (1.1e-5° ≈ 1.2 m cells).
        static let finest = 24
        /// Bytes of slots allowed per circle when choosing the level.
        static let budget = 88

        private(set) var level = -1
        private var size = 0.0
        private var inverse = 0.0
        private var rows = 0
        private var columns = 0
        private var slots: [Record] = []
        /// Circles (not copies) in the grid, and circles removed since it was built.
        private(set) var liveCount = 0
        private(set) var removedCount = 0

        init() {}

        private init(level: Int) {
            self.level = level
            size = 180 / Double(1 << level)
            inverse = Double(1 << level) / 180
            rows = 1 << level
            columns = 2 << level
        }

        // MARK: Cells

        /// The row of a latitude in [−90, 90]. Monotone in the latitude, as `column` is in the
        /// longitude, so a point inside a box lies in a cell between the box's corner cells.
        @inline(__always)
        private func row(_ latitude: Double) -> Int {
            max(0, min(Int(((latitude + 90) * inverse).rounded(.down)), rows - 1))
        }

        /// The column of a longitude, not wrapped (a box may reach past ±180°).
        @inline(__always)
        private func column(_ longitude: Double) -> Int {
            Int(((longitude + 180) * inverse).rounded(.down))
        }

        @inline(__always)
        private func wrapped(_ column: Int) -> Int {
            column < 0 ? column + columns : column >= columns ? column - columns : column
        }

        /// The first slot to look at for a cell, in a table of `count` slots.
        @inline(__always)
        private static func home(_ row: Int, _ column: Int, count: Int) -> Int {
            let key = UInt64(row) << 32 | UInt64(column)
            return Int((key &* 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: UInt64(count)).high)
        }

        /// The number of cells the circle's box touches (as `forEachCell` visits them).
        private func cellCount(_ circle: Circle, _ extent: Extent) -> Int {
            let rowSpan = row(circle.latitude + extent.halfLatitude) - row(circle.latitude - extent.halfLatitude)
            let columnSpan =
                column(circle.longitude + extent.halfLongitude) - column(circle.longitude - extent.halfLongitude)
            return (rowSpan + 1) * (columnSpan + 1)
        }

        /// Calls `body` with the row and wrapped column of each cell the circle's box touches.
        @inline(__always)
        private func forEachCell(_ circle: Circle, _ extent: Extent, _ body: (Int, Int) -> Void) {
            let firstColumn = column(circle.longitude - extent.halfLongitude)
            let lastColumn = column(circle.longitude + extent.halfLongitude)
            for r in row(circle.latitude - extent.halfLatitude)...row(circle.latitude + extent.halfLatitude) {
                for c in firstColumn...lastColumn {
                    body(r, wrapped(c))
                }
            }
        }

        static func fixed(_ degrees: Double) -> Int32 {
            Int32(truncatingIfNeeded: Int64((degrees * unitsPerDegree).rounded()))
        }

        // MARK: Building

        /// Builds the grid over `handles` (with their extents), choosing the level: the finest
        /// whose cell is at least as wide as the median circle, coarsened while the slots would
        /// exceed `budget` bytes per circle. Returns the indices into `handles` of the circles too
        /// wide for the chosen cells (wider than two cells), which the caller keeps elsewhere.
        mutating func build(handles: [UInt32], extents: [Extent], circles: [Circle]) -> [Int] {
            self = Grid()
            guard !handles.isEmpty else { return [] }
            var histogram = [Int](repeating: 0, count: Self.finest + 1)
            for extent in extents {
                var fits = Self.coarsest
                while fits < Self.finest && 180 / Double(2 << fits) >= extent.width { fits += 1 }
                histogram[fits] += 1
            }
            var level = Self.coarsest
            var fitting = 0
            for candidate in stride(from: Self.finest, through: Self.coarsest, by: -1) {
                fitting += histogram[candidate]
                if 2 * fitting >= handles.count {
                    level = candidate
                    break
                }
            }
            while level > Self.coarsest {
                let trial = Grid(level: level)
                var copies = 0
                var eligible = 0
                for j in handles.indices where extents[j].width <= 2 * trial.size {
                    copies += trial.cellCount(circles[Int(handles[j])], extents[j])
                    eligible += 1
                }
                if Self.slotCount(copies: copies) * MemoryLayout<Record>.stride <= Self.budget * max(1, eligible) {
                    break
                }
                level -= 1
            }
            var grid = Grid(level: level)
            let rejected = grid.fill(handles: handles, extents: extents, circles: circles)
            self = grid
            return rejected
        }

        /// Slots for a number of copies: load ≤ 3/4, and at least one slot always empty.
        private static func slotCount(copies: Int) -> Int { max(16, copies + copies / 3 + 1) }

        private mutating func fill(handles: [UInt32], extents: [Extent], circles: [Circle]) -> [Int] {
            var rejected: [Int] = []
            var copies = 0
            for j in handles.indices {
                if extents[j].width <= 2 * size {
                    copies += cellCount(circles[Int(handles[j])], extents[j])
                } else {
                    rejected.append(j)
                }
            }
            let emptyRecord = Record(latitude: 0, longitude: 0, radius: 0, handle: Self.empty)
            // Built in a local array: writing `slots` from the closure would copy it each time.
            var table = Array(repeating: emptyRecord, count: Self.slotCount(copies: copies))
            let count = table.count
            var next = 0
            for j in handles.indices {
                if next < rejected.count && rejected[next] == j {
                    next += 1
                    continue
                }
                let handle = handles[j]
                let circle = circles[Int(handle)]
                let record = Record(
                    latitude: Self.fixed(circle.latitude), longitude: Self.fixed(circle.longitude),
                    radius: Float32(circle.radius), handle: handle
                )
                forEachCell(circle, extents[j]) { r, c in
                    var i = Self.home(r, c, count: count)
                    while table[i].handle != Self.empty {
                        i += 1
                        if i == count { i = 0 }
                    }
                    table[i] = record
                }
            }
            slots = table
            liveCount = handles.count - rejected.count
            return rejected
        }

        // MARK: Updates and queries

        /// Turns every copy of a circle into a tombstone.
        mutating func remove(_ handle: UInt32, _ circle: Circle, _ extent: Extent) {
            guard level >= 0 else { return }
            var homes: [Int] = []
            forEachCell(circle, extent) { r, c in homes.append(Self.home(r, c, count: slots.count)) }
            var found = false
            for home in homes {
                var i = home
                while slots[i].handle != Self.empty {
                    if slots[i].handle == handle {
                        slots[i].handle = Self.tombstone
                        found = true
                        break
                    }
                    i += 1
                    if i == slots.count { i = 0 }
                }
            }
            if found {
                liveCount -= 1
                removedCount += 1
            }
        }

        /// Appends the handles of the circles met from the point's cell's home that contain it.
        @inline(__always)
        func query(_ point: FlatTest.Point, _ circles: UnsafeBufferPointer<Circle>, into result: inout [UInt32]) {
            guard level >= 0 else { return }
            let first = result.count
            let y = Self.fixed(point.latitude)
            let x = Self.fixed(point.longitude)
            var i = Self.home(row(point.latitude), min(column(point.longitude), columns - 1), count: slots.count)
            slots.withUnsafeBufferPointer { slots in
                while true {
                    let record = slots[i]
                    i += 1
                    if i == slots.count { i = 0 }
                    if record.handle >= Self.empty {
                        if record.handle == Self.empty { return }
                        continue
                    }
                    let verdict = point.decide(
                        dLatitude: Double(y &- record.latitude) * Self.degreesPerUnit,
                        dLongitude: Double(x &- record.longitude) * Self.degreesPerUnit,
                        radius: Double(record.radius)
                    )
                    let inside: Bool
                    switch verdict {
                    case .inside: inside = true
                    case .outside: inside = false
                    case .unsure: inside = CircleIndex.exactlyContains(circles[Int(record.handle)], point)
                    }
                    if inside && !result[first...].contains(record.handle) { result.append(record.handle) }
                }
            }
        }

        var estimatedBytes: Int { slots.capacity * MemoryLayout<Record>.stride }
    }
}

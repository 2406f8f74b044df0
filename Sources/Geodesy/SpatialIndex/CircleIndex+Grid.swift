extension CircleIndex {
    /// The compact bulk of the index: one uniform grid of square cells of `180 / 2^level` degrees;
    /// each circle is copied into every cell its bounding box (`Extent`) touches, so a query reads
    /// the one cell holding the point.
    ///
    /// Layout: `records`, every copy sorted by cell (row-major), 16 bytes each — the centre's
    /// offset from the cell's south-west corner in degrees and the radius in metres as Float32,
    /// and the handle; and `table`, an open-addressing hash (linear probing, multiplicative hash,
    /// load ≤ 3/4) from a cell to its range of records. Float32 rounding: offsets are at most two
    /// cells (≤ 2.9° at the coarsest level 7), so ≤ 1.7e-7° ≈ 2 cm per axis; radii are below
    /// 160 km, so ≤ 1 cm; `FlatTest` allows 5 cm. The exact test reads the Double circle.
    /// Removed circles become tombstones (handle `UInt32.max`) until the next build.
    struct Grid: Sendable {
        struct Record: Sendable {
            var dLatitude: Float32
            var dLongitude: Float32
            var radius: Float32
            var handle: UInt32
        }

        struct Slot: Sendable {
            var key: UInt64
            var start: UInt32
            var count: UInt32
        }

        static let tombstone = UInt32.max
        static let emptyKey = UInt64.max
        /// The coarsest level (1.4° cells): keeps Float32 offsets within 2 cm.
        static let coarsest = 7
        /// The finest level (1.1e-5° ≈ 1.2 m cells).
        static let finest = 24
        /// Bytes of records and table allowed per circle in the grid when choosing the level.
        static let budget = 88

        private(set) var level = -1
        private var size = 0.0
        private var inverse = 0.0
        private var rows = 0
        private var columns = 0
        private var records: [Record] = []
        private var table: [Slot] = []
        private var shift: UInt64 = 64
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

        @inline(__always)
        private func home(_ key: UInt64) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        }

        /// Calls `body` with the row, wrapped column and key of each cell the circle's box touches.
        @inline(__always)
        private func forEachCell(_ circle: Circle, _ extent: Extent, _ body: (Int, Int, UInt64) -> Void) {
            let firstColumn = column(circle.longitude - extent.halfLongitude)
            let lastColumn = column(circle.longitude + extent.halfLongitude)
            for r in row(circle.latitude - extent.halfLatitude)...row(circle.latitude + extent.halfLatitude) {
                for c in firstColumn...lastColumn {
                    let w = wrapped(c)
                    body(r, w, UInt64(r) << 32 | UInt64(w))
                }
            }
        }

        private func slotIndex(_ key: UInt64) -> Int? {
            guard !table.isEmpty else { return nil }
            var i = home(key)
            while true {
                let slotKey = table[i].key
                if slotKey == key { return i }
                if slotKey == Self.emptyKey { return nil }
                i = (i + 1) & (table.count - 1)
            }
        }

        // MARK: Building

        /// Builds the grid over `handles` (with their extents), choosing the level: the finest
        /// whose cell is at least as wide as the median circle, coarsened while records and table
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
            while true {
                var grid = Grid(level: level)
                let rejected = grid.fill(handles: handles, extents: extents, circles: circles)
                if level == Self.coarsest || grid.estimatedBytes <= Self.budget * max(1, grid.liveCount) {
                    self = grid
                    return rejected
                }
                level -= 1
            }
        }

        private mutating func fill(handles: [UInt32], extents: [Extent], circles: [Circle]) -> [Int] {
            var rejected: [Int] = []
            var copies: [(key: UInt64, record: Record)] = []
            copies.reserveCapacity(handles.count * 2)
            for j in handles.indices {
                let extent = extents[j]
                guard extent.width <= 2 * size else {
                    rejected.append(j)
                    continue
                }
                let handle = handles[j]
                let circle = circles[Int(handle)]
                forEachCell(circle, extent) { r, c, key in
                    var dLon = circle.longitude - (Double(c) * size - 180)
                    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                    let record = Record(
                        dLatitude: Float32(circle.latitude - (Double(r) * size - 90)),
                        dLongitude: Float32(dLon),
                        radius: Float32(circle.radius),
                        handle: handle
                    )
                    copies.append((key, record))
                }
            }
            copies.sort { $0.key < $1.key }
            records = copies.map(\.record)
            var distinct = 0
            for i in copies.indices where i == 0 || copies[i].key != copies[i - 1].key { distinct += 1 }
            var tableSize = 16
            var bits: UInt64 = 4
            while 3 * tableSize < 4 * distinct {
                tableSize <<= 1
                bits += 1
            }
            shift = 64 - bits
            table = Array(repeating: Slot(key: Self.emptyKey, start: 0, count: 0), count: tableSize)
            var start = 0
            while start < copies.count {
                var end = start + 1
                while end < copies.count && copies[end].key == copies[start].key { end += 1 }
                let key = copies[start].key
                var i = home(key)
                while table[i].key != Self.emptyKey { i = (i + 1) & (tableSize - 1) }
                table[i] = Slot(key: key, start: UInt32(start), count: UInt32(end - start))
                start = end
            }
            liveCount = handles.count - rejected.count
            return rejected
        }

        // MARK: Updates and queries

        /// Turns every copy of a circle into a tombstone.
        mutating func remove(_ handle: UInt32, _ circle: Circle, _ extent: Extent) {
            guard level >= 0 else { return }
            var slots: [Int] = []
            forEachCell(circle, extent) { _, _, key in
                if let i = slotIndex(key) { slots.append(i) }
            }
            var found = false
            for i in slots {
                let slot = table[i]
                for j in Int(slot.start)..<Int(slot.start) + Int(slot.count) where records[j].handle == handle {
                    records[j].handle = Self.tombstone
                    found = true
                }
            }
            if found {
                liveCount -= 1
                removedCount += 1
            }
        }

        /// Appends the handles of the circles in the point's cell that contain it.
        @inline(__always)
        func query(_ point: FlatTest.Point, _ circles: UnsafeBufferPointer<Circle>, into result: inout [UInt32]) {
            guard level >= 0 else { return }
            let r = row(point.latitude)
            let c = min(column(point.longitude), columns - 1)
            guard let i = slotIndex(UInt64(r) << 32 | UInt64(c)) else { return }
            let slot = table[i]
            let y = point.latitude - (Double(r) * size - 90)
            let x = point.longitude - (Double(c) * size - 180)
            records.withUnsafeBufferPointer { records in
                for j in Int(slot.start)..<Int(slot.start) + Int(slot.count) {
                    let record = records[j]
                    guard record.handle != Self.tombstone else { continue }
                    let verdict = point.decide(
                        dLatitude: y - Double(record.dLatitude), dLongitude: x - Double(record.dLongitude),
                        radius: Double(record.radius)
                    )
                    switch verdict {
                    case .inside: result.append(record.handle)
                    case .outside: break
                    case .unsure:
                        if CircleIndex.exactlyContains(circles[Int(record.handle)], point) {
                            result.append(record.handle)
                        }
                    }
                }
            }
        }

        var estimatedBytes: Int {
            records.capacity * MemoryLayout<Record>.stride + table.capacity * MemoryLayout<Slot>.stride
        }
    }
}

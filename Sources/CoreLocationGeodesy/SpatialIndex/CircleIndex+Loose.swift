extension CircleIndex {
    /// Circles inserted since the last build of the grid, and circles too wide for its cells: a
    /// multi-level *loose grid* in latitude/longitude degrees. Level ℓ has square cells of
    /// `180 / 2^ℓ` degrees. A circle goes, once, into the cell holding its centre at the finest
    /// level whose cell is at least its box's width (`Extent`). A point inside the circle lies
    /// within half a cell of the centre on each axis, so a query reads the 2 × 2 cells nearest the
    /// point at each populated level.
    struct LooseCells: Sendable {
        static let levels = 24

        /// Cell key (level, row, column) → handles.
        private var cells: [UInt64: [UInt32]] = [:]
        private var levelCounts = [Int](repeating: 0, count: LooseCells.levels)
        private var count = 0

        var isEmpty: Bool { count == 0 }

        static func cellDegrees(_ level: Int) -> Double { 180 / Double(1 << level) }

        static func key(level: Int, row: Int, column: Int) -> UInt64 {
            UInt64(level) << 58 | UInt64(row) << 29 | UInt64(column)
        }

        /// The level and cell key of a circle, nil when its box is wider than a level-0 cell.
        static func cell(_ circle: Circle, _ extent: Extent) -> (Int, UInt64)? {
            let width = extent.width
            guard width <= cellDegrees(0) else { return nil }
            var level = 0
            while level + 1 < levels && cellDegrees(level + 1) >= width { level += 1 }
            let size = cellDegrees(level)
            let rows = 1 << level
            let row = min(Int((circle.latitude + 90) / size), rows - 1)
            let column = min(Int((circle.longitude + 180) / size), 2 * rows - 1)
            return (level, key(level: level, row: row, column: column))
        }

        /// Adds a circle; false when it is too wide for any level (the caller keeps it elsewhere).
        mutating func insert(_ handle: UInt32, _ circle: Circle, _ extent: Extent) -> Bool {
            guard let (level, key) = Self.cell(circle, extent) else { return false }
            cells[key, default: []].append(handle)
            levelCounts[level] += 1
            count += 1
            return true
        }

        mutating func remove(_ handle: UInt32, _ circle: Circle, _ extent: Extent) {
            guard let (level, key) = Self.cell(circle, extent), var handles = cells.removeValue(forKey: key) else {
                return
            }
            if let position = handles.firstIndex(of: handle) {
                handles.swapAt(position, handles.count - 1)
                handles.removeLast()
                levelCounts[level] -= 1
                count -= 1
            }
            if !handles.isEmpty { cells[key] = handles }
        }

        func query(_ point: FlatTest.Point, _ circles: UnsafeBufferPointer<Circle>, into result: inout [UInt32]) {
            for level in 0..<Self.levels where levelCounts[level] > 0 {
                let size = Self.cellDegrees(level)
                let rows = 1 << level
                let columns = rows << 1
                let y = (point.latitude + 90) / size
                let x = (point.longitude + 180) / size
                let row = min(Int(y), rows - 1)
                let column = min(Int(x), columns - 1)
                let otherRow = y - Double(row) < 0.5 ? row - 1 : row + 1
                var otherColumn = x - Double(column) < 0.5 ? column - 1 : column + 1
                if otherColumn < 0 { otherColumn += columns } else if otherColumn >= columns { otherColumn -= columns }
                for rowPick in 0..<2 {
                    let r = rowPick == 0 ? row : otherRow
                    guard r >= 0 && r < rows else { continue }
                    for columnPick in 0..<2 {
                        let c = columnPick == 0 ? column : otherColumn
                        guard let handles = cells[Self.key(level: level, row: r, column: c)] else { continue }
                        for handle in handles where CircleIndex.contains(circles[Int(handle)], point) {
                            result.append(handle)
                        }
                    }
                }
            }
        }

        /// Hash buckets (key, reference, one byte of metadata), array headers and handles.
        var estimatedBytes: Int {
            var bytes = cells.capacity * (8 + 8 + 1)
            for handles in cells.values { bytes += 32 + handles.capacity * 4 }
            return bytes
        }
    }
}

extension CircleIndex {
    /// The compact part of the index: every record in one array sorted by cell key, and an
    /// open-addressing table (linear probing, multiplicative hash of the key without its two lowest
    /// column bits, load ≤ 1/2) from a cell key to
    /// its range. Removed records stay as tombstones (handle `UInt32.max`) until the next merge.
    struct FrozenCells: Sendable {
        struct Slot: Sendable {
            var key: UInt64
            var start: UInt32
            var count: UInt32
        }

        static let tombstone = UInt32.max

        private(set) var records: [Record] = []
        private var recordKeys: [UInt64] = []
        private var table: [Slot] = []
        private var shift: UInt64 = 64
        private(set) var liveCount = 0

        /// The home slot: four neighbouring columns of a row share it, so the 2 × 2 cells of a query
        /// usually sit in one or two cache lines of the table.
        @inline(__always)
        private func home(_ key: UInt64) -> Int {
            Int(truncatingIfNeeded: ((key & ~3) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        }

        private func slotIndex(_ key: UInt64) -> Int? {
            guard !table.isEmpty else { return nil }
            var i = home(key)
            let mask = table.count - 1
            while true {
                let slotKey = table[i].key
                if slotKey == key { return i }
                if slotKey == CircleIndex.freeKey { return nil }
                i = (i + 1) & mask
            }
        }

        /// Calls `body` with each live record of the cell.
        @inline(__always)
        func forEach(_ key: UInt64, _ body: (Record) -> Void) {
            guard let i = slotIndex(key) else { return }
            let slot = table[i]
            records.withUnsafeBufferPointer { buffer in
                for j in Int(slot.start)..<Int(slot.start + slot.count) where buffer[j].handle != Self.tombstone {
                    body(buffer[j])
                }
            }
        }

        func records(_ key: UInt64) -> [Record] {
            var found: [Record] = []
            forEach(key) { found.append($0) }
            return found
        }

        mutating func remove(_ handle: UInt32, key: UInt64) {
            guard let i = slotIndex(key) else { return }
            let slot = table[i]
            for j in Int(slot.start)..<Int(slot.start + slot.count) where records[j].handle == handle {
                records[j].handle = Self.tombstone
                liveCount -= 1
                return
            }
        }

        /// Rebuilds with the live records plus `recent`.
        mutating func merge(_ recent: [(UInt64, Record)]) {
            var all: [(UInt64, Record)] = []
            all.reserveCapacity(liveCount + recent.count)
            for (key, record) in zip(recordKeys, records) where record.handle != Self.tombstone {
                all.append((key, record))
            }
            all.append(contentsOf: recent)
            all.sort { $0.0 < $1.0 }
            records = all.map(\.1)
            recordKeys = all.map(\.0)
            liveCount = all.count
            var distinct = 0
            for i in all.indices where i == 0 || all[i].0 != all[i - 1].0 { distinct += 1 }
            var size = 16
            var bits: UInt64 = 4
            while size < 2 * distinct {
                size <<= 1
                bits += 1
            }
            shift = 64 - bits
            table = Array(repeating: Slot(key: CircleIndex.freeKey, start: 0, count: 0), count: size)
            var start = 0
            while start < all.count {
                var end = start + 1
                while end < all.count && all[end].0 == all[start].0 { end += 1 }
                let key = all[start].0
                var i = home(key)
                while table[i].key != CircleIndex.freeKey { i = (i + 1) & (size - 1) }
                table[i] = Slot(key: key, start: UInt32(start), count: UInt32(end - start))
                start = end
            }
        }

        var estimatedBytes: Int {
            records.capacity * MemoryLayout<Record>.stride + recordKeys.capacity * 8
                + table.capacity * MemoryLayout<Slot>.stride
        }
    }
}

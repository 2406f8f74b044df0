/// The binary search tree at the start of a MaxMind DB file (specification 2.0, "Binary Search Tree Section").
///
/// `nodes` is exactly `nodeCount` nodes, checked at open to lie inside the file, so a node number below
/// `nodeCount` is always a node that can be read: the walk needs no other bounds check, allocates nothing, and
/// takes at most 128 steps.
struct MaxMindSearchTree {
    let nodes: UnsafeRawBufferPointer
    let nodeCount: Int
    /// 24, 28 or 32 bits per record; a node is two records.
    let recordSize: Int
    /// 32 for an IPv4 tree, 128 for an IPv6 tree.
    let depth: Int
    /// Where IPv4 addresses start in an IPv6 tree: the record reached by 96 zero bits (`::a.b.c.d`), and how many
    /// bits that took (fewer when the walk left the tree early).
    private(set) var ipv4Start = 0
    private(set) var ipv4StartDepth = 0

    /// What an address's walk ends on.
    enum Record: Equatable {
        /// The database has no data for the address.
        case empty
        /// Offset of the address's data in the data section.
        case data(Int)
    }

    init(nodes: UnsafeRawBufferPointer, nodeCount: Int, recordSize: Int, ipVersion: Int) {
        self.nodes = nodes
        self.nodeCount = nodeCount
        self.recordSize = recordSize
        depth = ipVersion == 4 ? 32 : 128
        if ipVersion == 6 {
            let (record, bits) = walk(high: 0, low: 0, from: 0, bit: 0, to: 96)
            ipv4Start = record
            ipv4StartDepth = bits
        }
    }

    /// The record for `address` and the prefix length it covers (libmaxminddb's netmask: for an IPv4 address in an
    /// IPv6 tree, counted from the root of the IPv6 tree).
    ///
    /// - Throws: when the walk ends on something that is neither empty nor data: a node after the last bit, or a
    ///   value in the 16-byte separator (the separator itself and values past the data section are checked by
    ///   `dataSize`).
    func find(_ address: IPAddress, dataSize: Int) throws(MaxMindFormatError) -> (record: Record, prefix: Int) {
        let bytes = address.bytes
        var high: UInt64 = 0
        var low: UInt64 = 0
        let start: Int
        let bit: Int
        if address.family == .v4 {
            let v4 = UInt64(bytes[0]) << 24 | UInt64(bytes[1]) << 16 | UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            if depth == 32 {
                high = v4 << 32
                (start, bit) = (0, 0)
            } else {
                low = v4
                (start, bit) = (ipv4Start, ipv4StartDepth)
            }
        } else {
            for index in 0..<8 {
                high = high << 8 | UInt64(bytes[index])
                low = low << 8 | UInt64(bytes[8 + index])
            }
            (start, bit) = (0, 0)
        }
        let (value, prefix) = walk(high: high, low: low, from: start, bit: bit, to: depth)
        if value == nodeCount { return (.empty, prefix) }
        guard value > nodeCount else {
            throw MaxMindFormatError("the search tree ends on node \(value) after \(prefix) bits")
        }
        let offset = value - nodeCount - 16
        guard offset >= 0, offset < dataSize else {
            throw MaxMindFormatError("the search tree points outside the data section (record \(value))")
        }
        return (.data(offset), prefix)
    }

    /// Follows the address's bits (bit 0 is the top bit of `high`) from `node` at `bit` until a record that is not a
    /// node or bit `end`: the last record read and the number of bits used.
    private func walk(high: UInt64, low: UInt64, from node: Int, bit: Int, to end: Int) -> (Int, Int) {
        guard let base = nodes.baseAddress else { return (node, bit) }
        var node = node
        var bit = bit
        @inline(__always) func byte(_ offset: Int) -> Int { Int(base.load(fromByteOffset: offset, as: UInt8.self)) }
        @inline(__always) func right(_ bit: Int) -> Bool {
            bit < 64 ? high >> (63 - bit) & 1 == 1 : low >> (127 - bit) & 1 == 1
        }
        switch recordSize {
        case 24:
            while bit < end && node < nodeCount {
                let at = node * 6 + (right(bit) ? 3 : 0)
                node = byte(at) << 16 | byte(at + 1) << 8 | byte(at + 2)
                bit += 1
            }
        case 28:
            while bit < end && node < nodeCount {
                let at = node * 7
                if right(bit) {
                    node = (byte(at + 3) & 0x0f) << 24 | byte(at + 4) << 16 | byte(at + 5) << 8 | byte(at + 6)
                } else {
                    node = (byte(at + 3) & 0xf0) << 20 | byte(at) << 16 | byte(at + 1) << 8 | byte(at + 2)
                }
                bit += 1
            }
        default:
            while bit < end && node < nodeCount {
                let at = node * 8 + (right(bit) ? 4 : 0)
                node = byte(at) << 24 | byte(at + 1) << 16 | byte(at + 2) << 8 | byte(at + 3)
                bit += 1
            }
        }
        return (node, bit)
    }
}

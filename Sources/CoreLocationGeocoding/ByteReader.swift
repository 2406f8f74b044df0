/// Reads little-endian integers and LEB128 varints from a byte buffer, throwing on truncation.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var isAtEnd: Bool { offset >= end }

    mutating func uint32() throws(GeocodingError) -> UInt32 {
        guard end - offset >= 4 else { throw Self.truncated }
        var value: UInt32 = 0
        for k in 0..<4 { value |= UInt32(bytes[offset + k]) << (8 * UInt32(k)) }
        offset += 4
        return value
    }

    mutating func uint64() throws(GeocodingError) -> UInt64 {
        let low = try uint32()
        let high = try uint32()
        return UInt64(low) | UInt64(high) << 32
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    @inline(__always)
    mutating func varint() throws(GeocodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end, shift < 64 else { throw Self.truncated }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint that must fit an `Int` index below `limit`.
    @inline(__always)
    mutating func index(below limit: Int) throws(GeocodingError) -> Int {
        let value = try varint()
        guard value < UInt64(limit) else {
            throw GeocodingError(.resourceCorrupt, "index \(value) out of range 0..<\(limit) at byte \(offset)")
        }
        return Int(value)
    }

    /// A zigzag-encoded signed varint.
    @inline(__always)
    mutating func signed() throws(GeocodingError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    static var truncated: GeocodingError {
        GeocodingError(.resourceCorrupt, "the gazetteer resource is truncated")
    }
}

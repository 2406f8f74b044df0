/// The gazetteer's strings: one UTF-8 blob, decoded to `String` only when asked. Index 0 is "".
struct StringTable: Sendable {
    private let blob: [UInt8]
    private let starts: [UInt32]

    init(_ reader: ByteReader) throws(GeocodingError) {
        var reader = reader
        let count = try reader.index(below: 1 << 24)
        var blob: [UInt8] = []
        blob.reserveCapacity(reader.end - reader.offset)
        var starts: [UInt32] = [0]
        starts.reserveCapacity(count + 1)
        for _ in 0..<count {
            let length = try reader.index(below: reader.end - reader.offset + 1)
            blob.append(contentsOf: reader.bytes[reader.offset..<reader.offset + length])
            reader.offset += length
            starts.append(UInt32(blob.count))
        }
        self.blob = blob
        self.starts = starts
    }

    var count: Int { starts.count - 1 }

    subscript(index: Int) -> String {
        guard index > 0, index < starts.count - 1 else { return "" }
        return String(decoding: blob[Int(starts[index])..<Int(starts[index + 1])], as: UTF8.self)
    }

    /// The string, or nil for index 0 (absent).
    func optional(_ index: Int) -> String? {
        index == 0 ? nil : self[index]
    }
}

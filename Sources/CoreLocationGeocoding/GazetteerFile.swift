import Foundation

/// The container format of `gazetteer.bin`: a header with magic, version, payload length and a
/// checksum (FNV-1a-64 over little-endian 64-bit words, then the length), then tagged sections.
/// Written by `scripts/gazetteer-build.py`.
struct GazetteerFile {
    static let magic: [UInt8] = Array("CLGAZETR".utf8)
    static let version: UInt32 = 3
    static let headerSize = 32

    let bytes: [UInt8]
    /// Byte ranges of the sections, by four-letter tag.
    let sections: [String: Range<Int>]

    /// Checks the header and checksum and splits the sections; throws `.resourceCorrupt` on any mismatch.
    init(bytes: [UInt8]) throws(GeocodingError) {
        guard bytes.count >= Self.headerSize, Array(bytes[0..<8]) == Self.magic else {
            throw GeocodingError(.resourceCorrupt, "not a gazetteer file (bad magic)")
        }
        var header = ByteReader(bytes, from: 8)
        let version = try header.uint32()
        _ = try header.uint32()
        let length = try header.uint64()
        let checksum = try header.uint64()
        guard version == Self.version else {
            throw GeocodingError(.resourceCorrupt, "gazetteer version \(version), expected \(Self.version)")
        }
        guard length == UInt64(bytes.count - Self.headerSize) else {
            throw GeocodingError(
                .resourceCorrupt, "gazetteer payload is \(bytes.count - Self.headerSize) bytes, header says \(length)")
        }
        let actual = Self.fnv1a(bytes, from: Self.headerSize)
        guard actual == checksum else {
            throw GeocodingError(.resourceCorrupt, "gazetteer checksum mismatch: the file is damaged")
        }
        var sections: [String: Range<Int>] = [:]
        var reader = ByteReader(bytes, from: Self.headerSize)
        while !reader.isAtEnd {
            guard reader.end - reader.offset >= 8 else { throw ByteReader.truncated }
            let tag = String(decoding: bytes[reader.offset..<reader.offset + 4], as: UTF8.self)
            reader.offset += 4
            let size = Int(try reader.uint32())
            guard size <= reader.end - reader.offset else { throw ByteReader.truncated }
            sections[tag] = reader.offset..<reader.offset + size
            reader.offset += size
        }
        self.bytes = bytes
        self.sections = sections
    }

    func reader(_ tag: String) throws(GeocodingError) -> ByteReader {
        guard let range = sections[tag] else {
            throw GeocodingError(.resourceCorrupt, "gazetteer section \(tag) is missing")
        }
        return ByteReader(bytes, from: range.lowerBound, to: range.upperBound)
    }

    /// FNV-1a-64 over the bytes from `start` read as little-endian 64-bit words (the tail zero-padded),
    /// folded with the length; the build script's `fnv1a_words`.
    static func fnv1a(_ bytes: [UInt8], from start: Int) -> UInt64 {
        let prime: UInt64 = 0x100_0000_01B3
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let length = bytes.count - start
        bytes.withUnsafeBufferPointer { buffer in
            var index = start
            while index + 8 <= buffer.count {
                var word: UInt64 = 0
                for k in 0..<8 { word |= UInt64(buffer[index + k]) << (8 * UInt64(k)) }
                hash = (hash ^ word) &* prime
                index += 8
            }
            if index < buffer.count {
                var word: UInt64 = 0
                for k in 0..<(buffer.count - index) { word |= UInt64(buffer[index + k]) << (8 * UInt64(k)) }
                hash = (hash ^ word) &* prime
            }
        }
        return (hash ^ UInt64(length)) &* prime
    }
}

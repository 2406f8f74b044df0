/// Unmarshals values by type from one message's bytes, in either byte order, offsets counted from the message's
/// first byte (so alignment is the message's).
///
/// Nothing is allocated from a claimed length: a string, signature or array length is checked against the bytes
/// that are there (and an array's against 64 MiB) before it is used, and each element of an array takes at least
/// one byte, so the values decoded never outnumber the bytes read. Padding must be zero, booleans 0 or 1, strings
/// UTF-8 without NUL; every signature met (a variant's, a signature value) is parsed under `DBusSignature`'s
/// limits, and at most 64 containers (variants included) may surround a value. Any breach is a `DBusWireError`.
package struct DBusReader {
    let bytes: [UInt8]
    let bigEndian: Bool
    /// The first byte past the readable range (a message's end).
    let end: Int
    package private(set) var offset: Int

    package init(bytes: [UInt8], bigEndian: Bool, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    private func error(_ code: DBusWireError.Code, _ message: String) -> DBusWireError {
        DBusWireError(code, message, at: offset)
    }

    /// Skips to the next multiple of `alignment`; the skipped bytes must exist and be zero.
    package mutating func align(_ alignment: Int) throws {
        let target = (offset + alignment - 1) / alignment * alignment
        guard target <= end else { throw error(.truncated, "the message ends in padding") }
        while offset < target {
            guard bytes[offset] == 0 else { throw error(.badPadding, "padding byte \(bytes[offset]) is not zero") }
            offset += 1
        }
    }

    private mutating func need(_ count: Int, _ what: String) throws {
        guard count <= end - offset else { throw error(.truncated, "the message ends inside \(what)") }
    }

    package mutating func readByte() throws -> UInt8 {
        try need(1, "a byte")
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func readInteger(_ size: Int) throws -> UInt64 {
        try align(size)
        try need(size, "a \(size * 8)-bit value")
        var value: UInt64 = 0
        if bigEndian {
            for index in 0..<size { value = value << 8 | UInt64(bytes[offset + index]) }
        } else {
            for index in stride(from: size - 1, through: 0, by: -1) {
                value = value << 8 | UInt64(bytes[offset + index])
            }
        }
        offset += size
        return value
    }

    package mutating func readUInt16() throws -> UInt16 { UInt16(truncatingIfNeeded: try readInteger(2)) }
    package mutating func readUInt32() throws -> UInt32 { UInt32(truncatingIfNeeded: try readInteger(4)) }
    package mutating func readUInt64() throws -> UInt64 { try readInteger(8) }

    /// `length` bytes, then a NUL that is not part of them; none of them NUL, all of them UTF-8.
    private mutating func readText(length: Int, _ what: String) throws -> String {
        try need(length + 1, what)
        let range = offset..<(offset + length)
        guard bytes[offset + length] == 0 else { throw error(.badString, "\(what) is not NUL-terminated") }
        guard !bytes[range].contains(0) else { throw error(.badString, "\(what) holds NUL") }
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw error(.badString, "\(what) is not UTF-8")
        }
        offset += length + 1
        return text
    }

    package mutating func readString() throws -> String {
        let length = try readUInt32()
        guard Int(length) < end - offset else { throw error(.truncated, "a string of \(length) bytes") }
        return try readText(length: Int(length), "a string")
    }

    /// A signature value's text (not yet parsed).
    package mutating func readSignatureText() throws -> [UInt8] {
        let length = Int(try readByte())
        try need(length + 1, "a signature")
        let text = Array(bytes[offset..<(offset + length)])
        guard bytes[offset + length] == 0 else { throw error(.badString, "a signature is not NUL-terminated") }
        offset += length + 1
        return text
    }

    /// Reads a value of `type`; `depth` is the number of containers already around it.
    package mutating func read(_ type: DBusType, depth: Int) throws -> DBusValue {
        switch type {
        case .byte: return .byte(try readByte())
        case .bool:
            let raw = try readUInt32()
            guard raw <= 1 else { throw error(.badBoolean, "a boolean of \(raw)") }
            return .bool(raw == 1)
        case .int16: return .int16(Int16(bitPattern: try readUInt16()))
        case .uint16: return .uint16(try readUInt16())
        case .int32: return .int32(Int32(bitPattern: try readUInt32()))
        case .uint32: return .uint32(try readUInt32())
        case .int64: return .int64(Int64(bitPattern: try readUInt64()))
        case .uint64: return .uint64(try readUInt64())
        case .double: return .double(Double(bitPattern: try readUInt64()))
        case .unixFD: return .unixFD(Int32(bitPattern: try readUInt32()))
        case .string: return .string(try readString())
        case .objectPath:
            let path = try readString()
            guard DBusNames.isObjectPath(path) else { throw error(.badObjectPath, "'\(path)' is not an object path") }
            return .objectPath(path)
        case .signature:
            let text = try readSignatureText()
            _ = try DBusSignature.parse(bytes: text)
            return .signature(String(decoding: text, as: UTF8.self))
        case .array(let element):
            try enter(depth)
            let length = Int(try readUInt32())
            guard length <= DBusWriter.maxArrayLength else {
                throw error(.arrayTooLong, "an array of \(length) bytes (at most \(DBusWriter.maxArrayLength))")
            }
            try align(element.alignment)
            try need(length, "an array of \(length) bytes")
            let stop = offset + length
            var elements: [DBusValue] = []
            while offset < stop { elements.append(try read(element, depth: depth + 1)) }
            guard offset == stop else { throw error(.bodyMismatch, "an element runs past its array's end") }
            return .array(elementSignature: element.signature, elements)
        case .dictEntry(let key, let value):
            try enter(depth)
            try align(8)
            let readKey = try read(key, depth: depth + 1)
            return .dictEntry(readKey, try read(value, depth: depth + 1))
        case .structure(let fields):
            try enter(depth)
            try align(8)
            var values: [DBusValue] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try read(field, depth: depth + 1)) }
            return .structure(values)
        case .variant:
            try enter(depth)
            let text = try readSignatureText()
            let inner = try DBusSignature.parseSingle(bytes: text)
            return .variant(try read(inner, depth: depth + 1))
        }
    }

    private func enter(_ depth: Int) throws {
        guard depth < DBusWriter.maxTotalDepth else {
            throw error(.nestingTooDeep, "more than \(DBusWriter.maxTotalDepth) containers around a value")
        }
    }
}

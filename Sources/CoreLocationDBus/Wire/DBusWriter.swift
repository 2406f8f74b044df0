/// Marshals values little-endian, each aligned to its type's boundary counted from the writer's first byte (a
/// message, or a body, which starts on an 8-byte boundary of its message).
///
/// Everything the specification forbids is refused with `DBusWireError(.badValue / .nestingTooDeep / …)` before a
/// byte of it is written: strings holding NUL, invalid object paths and signatures, array elements whose type
/// differs from the array's, signatures beyond the limits (checked by `DBusSignature` on the values' signature),
/// more than 64 containers around a value, arrays beyond 64 MiB.
package struct DBusWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// The most containers (arrays, structures, dictionary entries, variants) around one value.
    package static let maxTotalDepth = 64
    /// The most bytes of one array's elements (2^26).
    package static let maxArrayLength = 1 << 26

    package mutating func pad(to alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - remainder)) }
    }

    package mutating func writeByte(_ value: UInt8) { bytes.append(value) }

    package mutating func writeUInt16(_ value: UInt16) {
        pad(to: 2)
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    package mutating func writeUInt32(_ value: UInt32) {
        pad(to: 4)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    package mutating func writeUInt64(_ value: UInt64) {
        pad(to: 8)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func writeString(_ text: String) throws {
        let utf8 = text.utf8
        guard !utf8.contains(0) else { throw DBusWireError(.badValue, "a string holds NUL") }
        writeUInt32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    mutating func writeSignature(_ signature: String) throws {
        _ = try DBusSignature.parse(signature)
        bytes.append(UInt8(signature.utf8.count))
        bytes.append(contentsOf: signature.utf8)
        bytes.append(0)
    }

    /// Writes `values` as a message body; returns their signature (checked against the limits first).
    package mutating func writeBody(_ values: [DBusValue]) throws -> String {
        let signature = values.map(\.signature).joined()
        _ = try DBusSignature.parse(signature)
        for value in values { try write(value, depth: 0) }
        return signature
    }

    /// Writes one value; `depth` is the number of containers already around it.
    package mutating func write(_ value: DBusValue, depth: Int) throws {
        switch value {
        case .byte(let v): writeByte(v)
        case .bool(let v): writeUInt32(v ? 1 : 0)
        case .int16(let v): writeUInt16(UInt16(bitPattern: v))
        case .uint16(let v): writeUInt16(v)
        case .int32(let v): writeUInt32(UInt32(bitPattern: v))
        case .uint32(let v): writeUInt32(v)
        case .int64(let v): writeUInt64(UInt64(bitPattern: v))
        case .uint64(let v): writeUInt64(v)
        case .double(let v): writeUInt64(v.bitPattern)
        case .unixFD(let v): writeUInt32(UInt32(bitPattern: v))
        case .string(let v): try writeString(v)
        case .objectPath(let v):
            guard DBusNames.isObjectPath(v) else { throw DBusWireError(.badValue, "'\(v)' is not an object path") }
            try writeString(v)
        case .signature(let v): try writeSignature(v)
        case .array(let element, let elements):
            try enter(depth)
            let type = try DBusSignature.parseSingle("a" + element)
            guard case .array(let elementType) = type else {
                throw DBusWireError(.badValue, "'\(element)' is not a type")
            }
            writeUInt32(0)
            let lengthAt = bytes.count - 4
            pad(to: elementType.alignment)
            let start = bytes.count
            for item in elements {
                guard item.signature == element else {
                    throw DBusWireError(.badValue, "an element of type \(item.signature) in an array of \(element)")
                }
                try write(item, depth: depth + 1)
            }
            let length = bytes.count - start
            guard length <= Self.maxArrayLength else {
                throw DBusWireError(.arrayTooLong, "an array of \(length) bytes (at most \(Self.maxArrayLength))")
            }
            for index in 0..<4 { bytes[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
        case .dictEntry(let key, let item):
            try enter(depth)
            guard key.signature.utf8.count == 1, key.signature != "v" else {
                throw DBusWireError(.badValue, "a dictionary key must be a basic type, not \(key.signature)")
            }
            pad(to: 8)
            try write(key, depth: depth + 1)
            try write(item, depth: depth + 1)
        case .structure(let fields):
            try enter(depth)
            guard !fields.isEmpty else { throw DBusWireError(.badValue, "an empty structure") }
            pad(to: 8)
            for field in fields { try write(field, depth: depth + 1) }
        case .variant(let inner):
            try enter(depth)
            let signature = inner.signature
            _ = try DBusSignature.parseSingle(signature)
            try writeSignature(signature)
            try write(inner, depth: depth + 1)
        }
    }

    private func enter(_ depth: Int) throws {
        guard depth < Self.maxTotalDepth else {
            throw DBusWireError(.nestingTooDeep, "more than \(Self.maxTotalDepth) containers around a value")
        }
    }
}

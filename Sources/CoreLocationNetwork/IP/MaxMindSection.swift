#if canImport(Glibc)
import Glibc
#endif

/// A run of encoded values: the data section, or the metadata. Offsets and pointers are relative to its start
/// (specification 2.0). Every read is checked against `bytes.count` before it happens; nothing here trusts a
/// length, a size or a pointer from the file.
struct MaxMindSection {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    @inline(__always) private func byte(_ offset: Int) -> Int {
        Int(bytes.load(fromByteOffset: offset, as: UInt8.self))
    }

    /// Big-endian unsigned integer of `length` (0…8) bytes at `offset`; the caller checked the bounds.
    @inline(__always) func unsigned(_ offset: Int, _ length: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<length { value = value << 8 | UInt64(byte(offset + index)) }
        return value
    }

    /// The header of the field at `offset`.
    func field(at offset: Int) throws(MaxMindFormatError) -> MaxMindField {
        guard offset >= 0, offset < count else { throw MaxMindFormatError("a field outside the section", at: offset) }
        let control = byte(offset)
        var at = offset + 1
        var number = control >> 5
        if number == 0 {
            guard at < count else { throw MaxMindFormatError("an extended type cut off at the end", at: offset) }
            number = 7 + byte(at)
            at += 1
            // An extended type byte of 0 would be type 7 (a map, which has a type of its own): refused, as the
            // Python reader does.
            guard number >= 8 else { throw MaxMindFormatError("an extended type below 8", at: offset) }
        }
        guard number <= 15, let type = MaxMindType(rawValue: UInt8(number)) else {
            throw MaxMindFormatError("unknown data type \(number)", at: offset)
        }
        if type == .pointer {
            let length = (control >> 3 & 3) + 1
            guard length <= count - at else { throw MaxMindFormatError("a pointer cut off at the end", at: offset) }
            let high = control & 7
            let target: Int
            switch length {
            case 1: target = high << 8 | Int(unsigned(at, 1))
            case 2: target = 2048 + (high << 16 | Int(unsigned(at, 2)))
            case 3: target = 526_336 + (high << 24 | Int(unsigned(at, 3)))
            default: target = Int(unsigned(at, 4))
            }
            return MaxMindField(type: .pointer, size: target, payload: at, next: at + length)
        }
        var size = control & 31
        if size >= 29 {
            let extra = size - 28
            guard extra <= count - at else { throw MaxMindFormatError("a size cut off at the end", at: offset) }
            let raw = Int(unsigned(at, extra))
            switch extra {
            case 1: size = 29 + raw
            case 2: size = 285 + raw
            default: size = 65_821 + raw
            }
            at += extra
        }
        switch type {
        case .map, .array:
            return MaxMindField(type: type, size: size, payload: at, next: at)
        case .boolean:
            return MaxMindField(type: type, size: size == 0 ? 0 : 1, payload: at, next: at)
        default:
            break
        }
        guard size <= count - at else { throw MaxMindFormatError("a value longer than the section", at: offset) }
        let fits: Bool
        switch type {
        case .uint16: fits = size <= 2
        case .uint32, .int32: fits = size <= 4
        case .uint64: fits = size <= 8
        case .uint128: fits = size <= 16
        case .double: fits = size == 8
        case .float: fits = size == 4
        default: fits = true
        }
        guard fits else { throw MaxMindFormatError("a \(type) of \(size) bytes", at: offset) }
        return MaxMindField(type: type, size: size, payload: at, next: at + size)
    }

    /// The field at `offset`, through a pointer if it is one (libmaxminddb's `decode_one_follow`). After a pointer to
    /// a scalar, `next` is what follows the pointer; after a pointer to a map or an array, its entries.
    func followed(at offset: Int) throws(MaxMindFormatError) -> MaxMindField {
        let first = try field(at: offset)
        guard first.type == .pointer else { return first }
        var target = try field(at: first.size)
        guard target.type != .pointer else { throw MaxMindFormatError("a pointer to a pointer", at: offset) }
        if target.type != .map && target.type != .array { target.next = first.next }
        return target
    }

    /// The offset after `field` and everything inside it, without following pointers. Iterative, so nesting costs
    /// no stack; each step reads at least one byte further, and each costs one of `budget`.
    func skip(_ field: MaxMindField, budget: inout Int) throws(MaxMindFormatError) -> Int {
        var current = field
        var pending = 0
        while true {
            switch current.type {
            case .map: pending += 2 * current.size
            case .array: pending += current.size
            default: break
            }
            guard pending > 0 else { return current.next }
            pending -= 1
            budget -= 1
            guard budget >= 0 else { throw MaxMindFormatError("a record beyond the decoder's limits") }
            current = try self.field(at: current.next)
        }
    }

    /// The value of `key` in the map `field` (libmaxminddb's `lookup_path_in_map`): nil when `field` is not a map or
    /// has no such key. Keys may be pointers to strings; the value is followed if it is a pointer.
    func member(_ key: StaticString, of field: MaxMindField, budget: inout Int) throws(MaxMindFormatError)
        -> MaxMindField?
    {
        guard field.type == .map else { return nil }
        var offset = field.payload
        for _ in 0..<field.size {
            budget -= 2
            guard budget >= 0 else { throw MaxMindFormatError("a record beyond the decoder's limits") }
            let name = try followed(at: offset)
            guard name.type == .string else { throw MaxMindFormatError("a map key that is not a string", at: offset) }
            if name.size == key.utf8CodeUnitCount, let base = bytes.baseAddress,
                memcmp(base + name.payload, key.utf8Start, name.size) == 0
            {
                return try followed(at: name.next)
            }
            offset = try skip(try self.field(at: name.next), budget: &budget)
        }
        return nil
    }

    /// A double's value.
    func double(_ field: MaxMindField) -> Double? {
        guard field.type == .double else { return nil }
        return Double(bitPattern: unsigned(field.payload, 8))
    }

    /// A UTF-8 string's value; malformed UTF-8 is repaired with U+FFFD, as the C-backed reader did.
    func string(_ field: MaxMindField) -> String? {
        guard field.type == .string else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[field.payload..<field.payload + field.size])
        return String(decoding: payload, as: UTF8.self)
    }

    /// A uint16's value.
    func uint16(_ field: MaxMindField) -> UInt16? {
        guard field.type == .uint16 else { return nil }
        return UInt16(unsigned(field.payload, field.size))
    }
}

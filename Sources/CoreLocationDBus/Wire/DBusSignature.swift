/// Parses type signatures under the specification's limits: at most 255 bytes, 32 nested arrays and 32 nested
/// structures (dictionary entries count as structures, as libdbus and GLib count them); structures hold at
/// least one type; a dictionary entry appears only as an array's element and has a basic key and one value.
package enum DBusSignature {
    package static let maxLength = 255
    package static let maxArrayDepth = 32
    package static let maxStructDepth = 32

    /// The complete types of a signature (a message body's: zero or more).
    package static func parse(_ signature: String) throws -> [DBusType] {
        try parse(bytes: Array(signature.utf8))
    }

    package static func parse(bytes: [UInt8]) throws -> [DBusType] {
        guard bytes.count <= maxLength else {
            throw DBusWireError(.signatureTooLong, "a signature of \(bytes.count) bytes (at most \(maxLength))")
        }
        var parser = Parser(bytes: bytes)
        var types: [DBusType] = []
        while parser.index < bytes.count { types.append(try parser.complete(arrays: 0, structs: 0)) }
        return types
    }

    /// Exactly one complete type (a variant's signature, an array's element).
    package static func parseSingle(_ signature: String) throws -> DBusType {
        try parseSingle(bytes: Array(signature.utf8))
    }

    package static func parseSingle(bytes: [UInt8]) throws -> DBusType {
        let types = try parse(bytes: bytes)
        guard types.count == 1 else {
            throw DBusWireError(
                .badSignature, "'\(String(decoding: bytes, as: UTF8.self))' is not one complete type")
        }
        return types[0]
    }

    /// True when `signature` parses (any number of complete types).
    package static func isValid(_ signature: String) -> Bool { (try? parse(signature)) != nil }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        private func bad(_ why: String) -> DBusWireError {
            DBusWireError(.badSignature, "'\(String(decoding: bytes, as: UTF8.self))': \(why)")
        }

        mutating func complete(arrays: Int, structs: Int, dictEntryAllowed: Bool = false) throws -> DBusType {
            guard index < bytes.count else { throw bad("ends inside a type") }
            let code = bytes[index]
            index += 1
            switch code {
            case UInt8(ascii: "y"): return .byte
            case UInt8(ascii: "b"): return .bool
            case UInt8(ascii: "n"): return .int16
            case UInt8(ascii: "q"): return .uint16
            case UInt8(ascii: "i"): return .int32
            case UInt8(ascii: "u"): return .uint32
            case UInt8(ascii: "x"): return .int64
            case UInt8(ascii: "t"): return .uint64
            case UInt8(ascii: "d"): return .double
            case UInt8(ascii: "s"): return .string
            case UInt8(ascii: "o"): return .objectPath
            case UInt8(ascii: "g"): return .signature
            case UInt8(ascii: "h"): return .unixFD
            case UInt8(ascii: "v"): return .variant
            case UInt8(ascii: "a"):
                guard arrays < maxArrayDepth else {
                    throw DBusWireError(.nestingTooDeep, "more than \(maxArrayDepth) nested arrays in a signature")
                }
                return .array(try complete(arrays: arrays + 1, structs: structs, dictEntryAllowed: true))
            case UInt8(ascii: "("):
                guard structs < maxStructDepth else {
                    throw DBusWireError(.nestingTooDeep, "more than \(maxStructDepth) nested structures in a signature")
                }
                var fields: [DBusType] = []
                while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                    fields.append(try complete(arrays: arrays, structs: structs + 1))
                }
                guard index < bytes.count else { throw bad("a structure is not closed") }
                index += 1
                guard !fields.isEmpty else { throw bad("an empty structure") }
                return .structure(fields)
            case UInt8(ascii: "{"):
                guard dictEntryAllowed else { throw bad("a dictionary entry outside an array") }
                guard structs < maxStructDepth else {
                    throw DBusWireError(.nestingTooDeep, "more than \(maxStructDepth) nested structures in a signature")
                }
                let key = try complete(arrays: arrays, structs: structs + 1)
                guard key.isBasic else { throw bad("a dictionary key must be a basic type") }
                guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else {
                    throw bad("a dictionary entry without a value")
                }
                let value = try complete(arrays: arrays, structs: structs + 1)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                    throw bad("a dictionary entry holds one key and one value")
                }
                index += 1
                return .dictEntry(key, value)
            default:
                throw bad("'\(Character(Unicode.Scalar(code)))' is not a type code")
            }
        }
    }
}

/// One complete D-Bus type, parsed from a signature: what the marshaller walks to read or write a value.
package indirect enum DBusType: Sendable, Hashable {
    case byte, bool, int16, uint16, int32, uint32, int64, uint64, double, string, objectPath, signature, unixFD
    case array(DBusType)
    /// Only directly inside an array (`a{sv}`); the key is a basic type.
    case dictEntry(DBusType, DBusType)
    case structure([DBusType])
    case variant

    /// The boundary a value of this type starts on, in bytes from the start of the message.
    package var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .bool, .int32, .uint32, .unixFD, .string, .objectPath, .array: 4
        case .int64, .uint64, .double, .structure, .dictEntry: 8
        }
    }

    /// Every type but containers and variants (dictionary keys must be one).
    package var isBasic: Bool {
        switch self {
        case .array, .dictEntry, .structure, .variant: false
        default: true
        }
    }

    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element): "a" + element.signature
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// The alignment of a value whose signature starts with `code` (an array's elements, known even when it
    /// has none); 1 for a byte that starts no type.
    package static func alignment(ofCode code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "h"), UInt8(ascii: "s"),
            UInt8(ascii: "o"), UInt8(ascii: "a"):
            4
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 1
        }
    }
}

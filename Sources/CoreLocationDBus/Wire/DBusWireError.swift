/// Bytes that are not a D-Bus message we accept: truncated, malformed, or beyond one of the specification's
/// limits (docs/decisions/0058). Thrown by the decoder before anything is allocated from a claimed length; a
/// connection that receives one drops the peer, as libdbus does.
package struct DBusWireError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case truncated, badEndianness, badVersion, badMessageType, badSerial, messageTooLong, arrayTooLong
            case signatureTooLong, nestingTooDeep, badSignature, badString, badBoolean, badPadding, badObjectPath
            case badHeaderField, missingHeaderField, bodyMismatch, badValue
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The bytes end inside a value or a message.
        package static let truncated = Code(.truncated)
        /// The first byte is neither `l` nor `B`.
        package static let badEndianness = Code(.badEndianness)
        /// A protocol major version other than 1.
        package static let badVersion = Code(.badVersion)
        /// Message type 0 or one this decoder does not know (the specification says to ignore unknown types:
        /// the connection skips them, see `DBusFrame`).
        package static let badMessageType = Code(.badMessageType)
        /// Serial 0, or a reply serial 0.
        package static let badSerial = Code(.badSerial)
        /// More than 128 MiB (2^27 bytes) in one message.
        package static let messageTooLong = Code(.messageTooLong)
        /// An array claiming more than 64 MiB (2^26 bytes).
        package static let arrayTooLong = Code(.arrayTooLong)
        /// A signature longer than 255 bytes.
        package static let signatureTooLong = Code(.signatureTooLong)
        /// More than 32 nested arrays or 32 nested structures in one signature, or 64 containers in all
        /// (variants included) around a value.
        package static let nestingTooDeep = Code(.nestingTooDeep)
        /// Not a signature, or not the single complete type a variant or an array element needs.
        package static let badSignature = Code(.badSignature)
        /// A string that is not UTF-8, holds a NUL, or lacks its terminating NUL.
        package static let badString = Code(.badString)
        /// A boolean other than 0 or 1.
        package static let badBoolean = Code(.badBoolean)
        /// Alignment padding that is not zero.
        package static let badPadding = Code(.badPadding)
        /// An object path that breaks the specification's rules.
        package static let badObjectPath = Code(.badObjectPath)
        /// A header field of the wrong type or with an invalid name, or one that appears twice.
        package static let badHeaderField = Code(.badHeaderField)
        /// A field the message type requires is absent (a call's path or member, a reply's serial…).
        package static let missingHeaderField = Code(.missingHeaderField)
        /// The body is longer or shorter than its signature's values, or has values but no signature.
        package static let bodyMismatch = Code(.bodyMismatch)
        /// A value that cannot be sent (an element whose type differs from its array's, a dictionary key that is
        /// not a basic type, an empty structure, a name that is not valid).
        package static let badValue = Code(.badValue)
        package var description: String { value.rawValue }
    }

    package var code: Code
    package var message: String
    /// Where in the message the decoder stopped (bytes from its first byte).
    package var offset: Int

    package init(_ code: Code, _ message: String, at offset: Int = 0) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    package var description: String { "D-Bus message \(code) at byte \(offset): \(message)" }
}

/// The message on the wire ("Message Format" in the specification): 12 fixed bytes (endianness `l`/`B`, type,
/// flags, version 1, body length, serial), the header fields `a(yv)`, padding to 8, the body. We write
/// little-endian and read both.
extension DBusMessage {
    /// The most bytes one message may have, header and body (2^27).
    package static let maxLength = 1 << 27
    /// Bytes needed to learn a message's length (`frameLength`).
    package static let fixedHeaderLength = 16

    // MARK: Writing

    /// The body marshalled once (the costly part of sending), so a connection can number the message afterwards
    /// under its lock with `encode(serial:body:)`.
    package struct EncodedBody: Sendable {
        package var signature: String
        package var bytes: [UInt8]
    }

    /// Marshals the body and checks the header fields. Throws `DBusWireError` for a value or name that cannot go
    /// on the wire.
    package func encodeBody() throws -> EncodedBody {
        try checkFieldsForSending()
        var writer = DBusWriter()
        let signature = try writer.writeBody(body)
        return EncodedBody(signature: signature, bytes: writer.bytes)
    }

    /// The whole message with `serial`, the body as `encodeBody()` made it.
    package func encode(serial: UInt32, body: EncodedBody) throws -> [UInt8] {
        guard serial != 0 else { throw DBusWireError(.badSerial, "serial 0") }
        var writer = DBusWriter()
        writer.writeByte(UInt8(ascii: "l"))
        writer.writeByte(kind.rawValue)
        writer.writeByte(flags.rawValue)
        writer.writeByte(1)
        writer.writeUInt32(UInt32(body.bytes.count))
        writer.writeUInt32(serial)
        var fields: [DBusValue] = []
        func add(_ field: Field, _ value: DBusValue?) {
            guard let value else { return }
            fields.append(.structure([.byte(field.rawValue), .variant(value)]))
        }
        add(.path, path.map { .objectPath($0) })
        add(.interface, interface.map { .string($0) })
        add(.member, member.map { .string($0) })
        add(.errorName, errorName.map { .string($0) })
        add(.replySerial, replySerial.map { .uint32($0) })
        add(.destination, destination.map { .string($0) })
        add(.sender, sender.map { .string($0) })
        add(.signature, body.signature.isEmpty ? nil : .signature(body.signature))
        add(.unixFDs, unixFDs.map { .uint32($0) })
        try writer.write(.array(elementSignature: "(yv)", fields), depth: 0)
        writer.pad(to: 8)
        var bytes = writer.bytes
        bytes.append(contentsOf: body.bytes)
        guard bytes.count <= Self.maxLength else {
            throw DBusWireError(.messageTooLong, "a message of \(bytes.count) bytes (at most \(Self.maxLength))")
        }
        return bytes
    }

    /// The whole message with its own `serial`.
    package func encode() throws -> [UInt8] { try encode(serial: serial, body: try encodeBody()) }

    private func checkFieldsForSending() throws {
        try Self.checkFields(self, at: 0)
    }

    /// The names a message carries are valid and its type has the fields it needs.
    static func checkFields(_ message: DBusMessage, at offset: Int) throws {
        func bad(_ what: String) -> DBusWireError { DBusWireError(.badHeaderField, what, at: offset) }
        if let path = message.path, !DBusNames.isObjectPath(path) { throw bad("'\(path)' is not an object path") }
        if let interface = message.interface, !DBusNames.isInterface(interface) {
            throw bad("'\(interface)' is not an interface name")
        }
        if let member = message.member, !DBusNames.isMember(member) { throw bad("'\(member)' is not a member name") }
        if let name = message.errorName, !DBusNames.isErrorName(name) { throw bad("'\(name)' is not an error name") }
        if let name = message.destination, !DBusNames.isBusName(name) { throw bad("'\(name)' is not a bus name") }
        if let name = message.sender, !DBusNames.isBusName(name) { throw bad("'\(name)' is not a bus name") }
        if message.replySerial == 0 { throw DBusWireError(.badSerial, "reply serial 0", at: offset) }
        func need(_ present: Bool, _ what: String) throws {
            guard present else {
                throw DBusWireError(.missingHeaderField, "a \(message.kind) without \(what)", at: offset)
            }
        }
        switch message.kind {
        case .methodCall:
            try need(message.path != nil, "a path")
            try need(message.member != nil, "a member")
        case .signal:
            try need(message.path != nil, "a path")
            try need(message.interface != nil, "an interface")
            try need(message.member != nil, "a member")
        case .error:
            try need(message.errorName != nil, "an error name")
            try need(message.replySerial != nil, "a reply serial")
        case .methodReturn:
            try need(message.replySerial != nil, "a reply serial")
        }
    }

    // MARK: Reading

    /// The length of the message starting at `offset` in `bytes`, from its first 16 bytes; nil while fewer are
    /// there. Throws when those bytes cannot start a message or claim more than 128 MiB, so a reader never waits
    /// for (or allocates) more than that.
    package static func frameLength(_ bytes: [UInt8], at offset: Int) throws -> Int? {
        guard bytes.count - offset >= fixedHeaderLength else { return nil }
        let bigEndian: Bool
        switch bytes[offset] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: throw DBusWireError(.badEndianness, "endianness byte \(bytes[offset])")
        }
        guard bytes[offset + 3] == 1 else {
            throw DBusWireError(.badVersion, "protocol version \(bytes[offset + 3]) (only 1 exists)", at: 3)
        }
        func word(_ at: Int) -> Int {
            let word = bytes[(offset + at)..<(offset + at + 4)]
            return bigEndian
                ? word.reduce(0) { $0 << 8 | Int($1) } : word.reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        let bodyLength = word(4)
        let fieldsLength = word(12)
        guard fieldsLength <= DBusWriter.maxArrayLength else {
            throw DBusWireError(.arrayTooLong, "header fields of \(fieldsLength) bytes", at: 12)
        }
        let total = fixedHeaderLength + (fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maxLength else {
            throw DBusWireError(.messageTooLong, "a message of \(total) bytes (at most \(maxLength))", at: 4)
        }
        return total
    }

    /// Decodes one whole message (exactly `frameLength` bytes).
    package static func decode(_ bytes: [UInt8]) throws -> DBusMessage {
        guard let length = try frameLength(bytes, at: 0) else {
            throw DBusWireError(.truncated, "\(bytes.count) bytes cannot hold a message header")
        }
        guard length == bytes.count else {
            throw DBusWireError(
                .truncated, "the header says \(length) bytes, \(bytes.count) are there", at: bytes.count)
        }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        guard let kind = Kind(rawValue: bytes[1]) else {
            throw DBusWireError(.badMessageType, "message type \(bytes[1])", at: 1)
        }
        var message = DBusMessage(kind: kind)
        message.flags = Flags(rawValue: bytes[2])
        var reader = DBusReader(bytes: bytes, bigEndian: bigEndian, offset: 4)
        let bodyLength = Int(try reader.readUInt32())
        message.serial = try reader.readUInt32()
        guard message.serial != 0 else { throw DBusWireError(.badSerial, "serial 0", at: 8) }
        let fields = try reader.read(.array(.structure([.byte, .variant])), depth: 0)
        try message.setFields(fields, at: 12)
        try reader.align(8)
        guard reader.offset + bodyLength == bytes.count else {
            throw DBusWireError(.bodyMismatch, "the body does not follow the header", at: reader.offset)
        }
        try checkFields(message, at: 12)
        let types = try DBusSignature.parse(message.signature)
        guard !types.isEmpty || bodyLength == 0 else {
            throw DBusWireError(.bodyMismatch, "a body of \(bodyLength) bytes without a signature", at: reader.offset)
        }
        var values: [DBusValue] = []
        values.reserveCapacity(types.count)
        for type in types { values.append(try reader.read(type, depth: 0)) }
        guard reader.offset == bytes.count else {
            throw DBusWireError(
                .bodyMismatch, "\(bytes.count - reader.offset) bytes after the body's values", at: reader.offset)
        }
        message.body = values
        return message
    }

    /// Takes the known header fields, each of its specified type; unknown codes are ignored (the specification).
    private mutating func setFields(_ fields: DBusValue, at offset: Int) throws {
        var seen = Set<UInt8>()
        for field in fields.elements ?? [] {
            guard case .structure(let pair) = field, pair.count == 2, case .byte(let code) = pair[0],
                case .variant(let value) = pair[1]
            else { continue }
            guard let known = Field(rawValue: code) else { continue }
            guard seen.insert(code).inserted else {
                throw DBusWireError(.badHeaderField, "header field \(code) appears twice", at: offset)
            }
            func wrongType() -> DBusWireError {
                DBusWireError(.badHeaderField, "header field \(known) of type \(value.signature)", at: offset)
            }
            switch (known, value) {
            case (.path, .objectPath(let text)): path = text
            case (.interface, .string(let text)): interface = text
            case (.member, .string(let text)): member = text
            case (.errorName, .string(let text)): errorName = text
            case (.replySerial, .uint32(let number)): replySerial = number
            case (.destination, .string(let text)): destination = text
            case (.sender, .string(let text)): sender = text
            case (.signature, .signature(let text)): signature = text
            case (.unixFDs, .uint32(let number)): unixFDs = number
            default: throw wrongType()
            }
        }
    }
}

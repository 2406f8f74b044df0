import CoreLocationDBus
import Foundation
import Testing

/// Every limit and rule of the specification the decoder enforces: each breach is a `DBusWireError` with its
/// code, never a crash, and a claimed length is refused before anything is allocated for it.
struct DBusWireLimitTests {
    /// A little-endian message from raw parts: the header fields as values (anything, valid or not) and the body's
    /// bytes as given. `bodyLength` overrides the length the header claims.
    static func raw(
        kind: UInt8 = 4, serial: UInt32 = 1, version: UInt8 = 1, fields: [DBusValue], body: [UInt8] = [],
        bodyLength: UInt32? = nil
    ) throws -> [UInt8] {
        var writer = DBusWriter()
        for byte in [UInt8(ascii: "l"), kind, 0, version] { writer.writeByte(byte) }
        writer.writeUInt32(bodyLength ?? UInt32(body.count))
        writer.writeUInt32(serial)
        try writer.write(.array(elementSignature: "(yv)", fields), depth: 0)
        writer.pad(to: 8)
        return writer.bytes + body
    }

    static func field(_ code: UInt8, _ value: DBusValue) -> DBusValue { .structure([.byte(code), .variant(value)]) }

    /// A signal's required fields, and a SIGNATURE field when `signature` is given.
    static func signalFields(signature: String? = nil) -> [DBusValue] {
        var fields = [
            field(1, .objectPath("/a")), field(2, .string("org.example.I")), field(3, .string("S")),
        ]
        if let signature { fields.append(field(8, .signature(signature))) }
        return fields
    }

    static func expect(
        _ code: DBusWireError.Code, _ bytes: [UInt8], _ note: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try DBusMessage.decode(bytes)
            Issue.record("decoded; expected \(code) \(note)", sourceLocation: sourceLocation)
        } catch let error as DBusWireError {
            #expect(error.code == code, "\(note): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Lengths

    @Test func aMessageOver128MiBIsRefusedFromItsHeader() throws {
        // 16 bytes claiming a body of 2^27: refused before a byte more is read or kept.
        let header = try Self.raw(fields: [], bodyLength: 1 << 27).prefix(16)
        #expect(throws: DBusWireError.self) { _ = try DBusMessage.frameLength(Array(header), at: 0) }
        var reader = DBusFrameReader()
        reader.append(Array(header))
        do {
            _ = try reader.next()
            Issue.record("the reader waited for 128 MiB")
        } catch let error as DBusWireError {
            #expect(error.code == .messageTooLong)
        }
        // Exactly 2^27 in all is allowed: the limit is the message, not the body.
        let fitting = try Self.raw(fields: [], bodyLength: UInt32((1 << 27) - 16))
        #expect(try DBusMessage.frameLength(fitting, at: 0) == 1 << 27)
        #expect(try DBusMessage.frameLength(Array(fitting.prefix(15)), at: 0) == nil, "fewer than 16 bytes: wait")
    }

    @Test func anArrayOver64MiBIsRefusedFromItsLength() throws {
        let claimed: UInt32 = (1 << 26) + 1
        let body = (0..<4).map { UInt8(truncatingIfNeeded: claimed >> (8 * $0)) }
        Self.expect(.arrayTooLong, try Self.raw(fields: Self.signalFields(signature: "ay"), body: body))
        // 2^26 itself is allowed by the limit; this message does not hold it, so it is truncated, not refused.
        let allowed = (0..<4).map { UInt8(truncatingIfNeeded: UInt32(1 << 26) >> (8 * $0)) }
        Self.expect(.truncated, try Self.raw(fields: Self.signalFields(signature: "ay"), body: allowed))
        // The header fields are an array too.
        var header = try Self.raw(fields: [])
        header[12...15] = [0x01, 0x00, 0x00, 0x04]
        #expect(throws: DBusWireError.self) { _ = try DBusMessage.frameLength(header, at: 0) }
    }

    @Test func aSignatureOver255BytesIsRefused() throws {
        #expect(try DBusSignature.parse(String(repeating: "y", count: 255)).count == 255)
        do {
            _ = try DBusSignature.parse(String(repeating: "y", count: 256))
            Issue.record("a 256-byte signature parsed")
        } catch let error as DBusWireError {
            #expect(error.code == .signatureTooLong)
        }
        var writer = DBusWriter()
        #expect(throws: DBusWireError.self) { _ = try writer.writeBody(Array(repeating: .byte(1), count: 256)) }
    }

    // MARK: Nesting

    @Test func moreThan32ArraysOrStructuresInASignatureAreRefused() throws {
        _ = try DBusSignature.parseSingle(String(repeating: "a", count: 32) + "y")
        _ = try DBusSignature.parseSingle(String(repeating: "(", count: 32) + "y" + String(repeating: ")", count: 32))
        for signature in [
            String(repeating: "a", count: 33) + "y",
            String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33),
            // Dictionary entries count as structures.
            String(repeating: "a{s", count: 33) + "y" + String(repeating: "}", count: 33),
        ] {
            do {
                _ = try DBusSignature.parse(signature)
                Issue.record("\(signature) parsed")
            } catch let error as DBusWireError {
                #expect(error.code == .nestingTooDeep, "\(signature)")
            }
        }
        // The same in a message: a SIGNATURE field that nests 33 arrays (our writer refuses to make one, so a valid
        // signature of the same length is written and its text replaced).
        let deep = Array((String(repeating: "a", count: 33) + "y").utf8)
        var message = try Self.raw(fields: Self.signalFields(signature: String(repeating: "y", count: 34)))
        let at = try #require(
            message.indices.first { message[$0...].starts(with: [34] + Array(repeating: UInt8(ascii: "y"), count: 34)) }
        )
        message.replaceSubrange((at + 1)...(at + 34), with: deep)
        Self.expect(.nestingTooDeep, message)
    }

    /// Variants carry their own signatures, each within the per-signature limits; what bounds them is 64
    /// containers around a value in all.
    @Test func moreThan64ContainersThroughVariantsAreRefused() throws {
        func variants(_ count: Int) -> [UInt8] {
            Array(repeating: [1, UInt8(ascii: "v"), 0], count: count - 1).flatMap { $0 } + [1, UInt8(ascii: "y"), 0, 7]
        }
        let deepest = try DBusMessage.decode(
            try Self.raw(fields: Self.signalFields(signature: "v"), body: variants(64)))
        var value = try #require(deepest.body.first)
        var depth = 0
        while case .variant(let inner) = value {
            depth += 1
            value = inner
        }
        #expect(depth == 64)
        #expect(value == .byte(7))
        Self.expect(.nestingTooDeep, try Self.raw(fields: Self.signalFields(signature: "v"), body: variants(65)))
        // Our writer refuses to send what the peer would refuse.
        var nested = DBusValue.byte(7)
        for _ in 0..<65 { nested = .variant(nested) }
        var writer = DBusWriter()
        #expect(throws: DBusWireError.self) { _ = try writer.writeBody([nested]) }
    }

    // MARK: Values

    @Test func everyPrefixOfAMessageIsTruncatedNeverACrash() throws {
        let whole = try DBusWireOracleTests.fixture("glib/call-all-types-be.bin")
        for length in 0..<whole.count {
            #expect(throws: DBusWireError.self) { _ = try DBusMessage.decode(Array(whole.prefix(length))) }
        }
        _ = try DBusMessage.decode(whole)
    }

    @Test func malformedValuesAreRefused() throws {
        let fields = Self.signalFields
        Self.expect(.badBoolean, try Self.raw(fields: fields("b"), body: [2, 0, 0, 0]))
        Self.expect(.badPadding, try Self.raw(fields: fields("yu"), body: [1, 9, 0, 0, 5, 0, 0, 0]))
        Self.expect(.badString, try Self.raw(fields: fields("s"), body: [2, 0, 0, 0, 0xC3, 0x28, 0]), "not UTF-8")
        Self.expect(.badString, try Self.raw(fields: fields("s"), body: [2, 0, 0, 0, 0x61, 0, 0]), "a NUL inside")
        Self.expect(
            .badString, try Self.raw(fields: fields("s"), body: [1, 0, 0, 0, 0x61, 0x62]), "no terminating NUL")
        Self.expect(.badObjectPath, try Self.raw(fields: fields("o"), body: [5, 0, 0, 0] + Array("/a//b".utf8) + [0]))
        Self.expect(
            .badSignature, try Self.raw(fields: fields("g"), body: [2, UInt8(ascii: "a"), UInt8(ascii: "{"), 0]))
        Self.expect(
            .badSignature, try Self.raw(fields: fields("v"), body: [2, UInt8(ascii: "y"), UInt8(ascii: "y"), 0, 1, 2]))
        Self.expect(.badSignature, try Self.raw(fields: fields("v"), body: [4] + Array("{sv}".utf8) + [0]))
        // An int32 array claiming 2 bytes: its element runs past its end.
        Self.expect(.bodyMismatch, try Self.raw(fields: fields("aiy"), body: [2, 0, 0, 0, 1, 0, 0, 0]))
        Self.expect(.bodyMismatch, try Self.raw(fields: fields("y"), body: [1, 2]), "a byte after the values")
        Self.expect(.bodyMismatch, try Self.raw(fields: fields(nil), body: [1]), "a body without a signature")
    }

    // MARK: The header

    @Test func malformedHeadersAreRefused() throws {
        let valid = try Self.raw(fields: Self.signalFields())
        _ = try DBusMessage.decode(valid)
        var endianness = valid
        endianness[0] = UInt8(ascii: "x")
        Self.expect(.badEndianness, endianness)
        Self.expect(.badVersion, try Self.raw(version: 2, fields: Self.signalFields()))
        Self.expect(.badSerial, try Self.raw(serial: 0, fields: Self.signalFields()))
        Self.expect(.badMessageType, try Self.raw(kind: 0, fields: Self.signalFields()))
        let f = Self.field
        Self.expect(
            .badHeaderField, try Self.raw(fields: [f(1, .string("/a")), f(2, .string("a.b")), f(3, .string("S"))]))
        Self.expect(.badHeaderField, try Self.raw(fields: Self.signalFields() + [f(3, .string("T"))]), "twice")
        Self.expect(
            .badHeaderField,
            try Self.raw(fields: [f(1, .objectPath("/a")), f(2, .string("a.b")), f(3, .string("bad-member"))]))
        Self.expect(.badHeaderField, try Self.raw(fields: Self.signalFields() + [f(7, .string("no.dots..here"))]))
        Self.expect(
            .missingHeaderField, try Self.raw(fields: [f(1, .objectPath("/a")), f(3, .string("S"))]),
            "a signal without interface")
        Self.expect(
            .missingHeaderField, try Self.raw(kind: 1, fields: [f(1, .objectPath("/a"))]), "a call without member")
        Self.expect(.missingHeaderField, try Self.raw(kind: 3, fields: [f(5, .uint32(3))]), "an error without a name")
        Self.expect(.badSerial, try Self.raw(kind: 2, fields: [f(5, .uint32(0))]), "reply serial 0")
        // Unknown header fields are ignored (the specification).
        let extra = try DBusMessage.decode(try Self.raw(fields: Self.signalFields() + [f(200, .string("x"))]))
        #expect(extra.member == "S")
    }

    /// A message of a type this decoder does not know is skipped by the stream reader (the specification says to
    /// ignore it); the next message still comes.
    @Test func unknownMessageTypesAreSkipped() throws {
        let unknown = try Self.raw(kind: 9, fields: Self.signalFields())
        Self.expect(.badMessageType, unknown)
        var reader = DBusFrameReader()
        reader.append(unknown + (try Self.raw(serial: 2, fields: Self.signalFields())))
        let next = try #require(try reader.next())
        #expect(next.serial == 2)
        #expect(try reader.next() == nil)
    }

    /// What cannot be sent is refused before a byte is written.
    @Test func theWriterRefusesWhatTheWireForbids() {
        let bad: [DBusValue] = [
            .objectPath("/trailing/"), .string("nul\u{0}inside"), .signature("a{"),
            .array(elementSignature: "s", [.int32(1)]), .structure([]),
            .array(elementSignature: "{vs}", [.dictEntry(.variant(.int32(1)), .string("x"))]),
            .array(elementSignature: "yy", []), .dictEntry(.string("k"), .int32(1)),
        ]
        for value in bad {
            var writer = DBusWriter()
            #expect(throws: DBusWireError.self, "\(value)") { _ = try writer.writeBody([value]) }
        }
        var message = DBusMessage.signal(path: "/a", interface: "org.example.I", member: "bad-member")
        #expect(throws: DBusWireError.self) { _ = try message.encodeBody() }
        message.member = "Good"
        message.serial = 0
        #expect(throws: DBusWireError.self) { _ = try message.encode() }
    }
}

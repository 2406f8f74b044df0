@testable import CoreLocationNetwork
import Foundation
import Testing

/// The data-section decoder against the byte vectors of MaxMind's own decoder tests (PyPI maxminddb 3.2.0,
/// `tests/decoder_test.py`, Apache-2.0 / MIT; NOTICE): each encoding and the value the reference reader gives it,
/// and the resource-limit cases at and one past each limit.
@Suite struct MaxMindDecoderTests {
    /// Decodes the value at `offset` of `bytes`.
    func decode(_ bytes: [UInt8], at offset: Int = 0) throws -> MaxMindValue {
        try bytes.withUnsafeBytes { try MaxMindSection(bytes: $0).value(at: offset) }
    }

    func expectRefused(_ bytes: [UInt8], at offset: Int = 0, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let value = try decode(bytes, at: offset)
            Issue.record("decoded \(value)", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(words), "\(error)", sourceLocation: sourceLocation)
        }
    }

    func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { index in
            let start = text.index(text.startIndex, offsetBy: index)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    /// A one-byte-payload pointer to `target` (< 2048).
    func pointer(_ target: Int) -> [UInt8] { [UInt8(1 << 5 | (target >> 8) & 7), UInt8(target & 0xff)] }

    @Test func scalars() throws {
        let cases: [(String, MaxMindValue)] = [
            ("0007", .boolean(false)), ("0107", .boolean(true)),
            ("680000000000000000", .double(0)), ("683fe0000000000000", .double(0.5)),
            ("68400921fb54442eea", .double(3.14159265359)), ("68405ec00000000000", .double(123)),
            ("6841d000000007f8f4", .double(1073741824.12457)), ("68bfe0000000000000", .double(-0.5)),
            ("68c1d000000007f8f4", .double(-1073741824.12457)),
            ("040800000000", .float(0)), ("04083f800000", .float(1)), ("04083f8ccccd", .float(1.1)),
            ("04084048f5c3", .float(3.14)), ("0408461c3ff6", .float(9999.99)), ("0408c61c3ff6", .float(-9999.99)),
            ("0001", .int32(0)), ("0401ffffffff", .int32(-1)), ("0101ff", .int32(255)),
            ("0401ffffff01", .int32(-255)), ("020101f4", .int32(500)), ("0401fffffe0c", .int32(-500)),
            ("0201ffff", .int32(65535)), ("0401ffff0001", .int32(-65535)), ("0301ffffff", .int32(16_777_215)),
            ("0401ff000001", .int32(-16_777_215)), ("04017fffffff", .int32(2_147_483_647)),
            ("040180000001", .int32(-2_147_483_647)),
            ("a0", .uint16(0)), ("a1ff", .uint16(255)), ("a201f4", .uint16(500)), ("a22a78", .uint16(10872)),
            ("a2ffff", .uint16(65535)),
            ("c0", .uint32(0)), ("c1ff", .uint32(255)), ("c201f4", .uint32(500)), ("c3ffffff", .uint32(16_777_215)),
            ("c4ffffffff", .uint32(4_294_967_295)),
            ("0002", .uint64(0)), ("020201f4", .uint64(500)), ("02022a78", .uint64(10872)),
            ("0802ffffffffffffffff", .uint64(.max)),
            ("0003", .uint128(0)), ("020301f4", .uint128(500)), ("1003" + String(repeating: "ff", count: 16), .uint128(.max)),
            ("0903" + String(repeating: "ff", count: 9), .uint128(UInt128(1) << 72 - 1)),
            ("40", .string("")), ("4131", .string("1")), ("43e4baba", .string("人")),
            ("80", .bytes([])), ("8131", .bytes([0x31])),
        ]
        for (encoded, expected) in cases {
            #expect(try decode(hex(encoded)) == expected, "\(encoded)")
        }
    }

    /// The size encodings of the specification: below 29 in the control byte, then 29 + one byte, 285 + two,
    /// 65 821 + three.
    @Test func stringSizes() throws {
        let digits = Array("1234567890123456789012345678901234567890".utf8)
        let cases: [([UInt8], Int)] = [
            ([0x5b], 27), ([0x5c], 28), ([0x5d, 0x00], 29), ([0x5d, 0x01], 30), ([0x5e, 0x00, 0xd7], 500),
            ([0x5e, 0x06, 0xb3], 2000), ([0x5f, 0x00, 0x10, 0x53], 70000),
        ]
        for (header, length) in cases {
            let payload = length <= 30 ? Array(digits.prefix(length)) : [UInt8](repeating: 0x78, count: length)
            #expect(try decode(header + payload) == .string(String(decoding: payload, as: UTF8.self)), "\(length)")
            // The same field with one byte missing is refused, not read past its end.
            expectRefused(header + payload.dropLast(), "longer than the section")
        }
    }

    @Test func pointers() throws {
        let cases: [(String, Int)] = [
            ("2000", 0), ("2005", 5), ("200a", 10), ("23ff", 1023), ("2803c9", 3017), ("2ff7fb", 524_283),
            ("2fffff", 526_335), ("37f7f7fe", 134_217_726), ("37ffffff", 134_744_063), ("387fffffff", 2_147_483_647),
            ("38ffffffff", 4_294_967_295), ("3dffffffff", 4_294_967_295), ("3fffffffff", 4_294_967_295),
        ]
        for (encoded, target) in cases {
            let field = try hex(encoded).withUnsafeBytes { try MaxMindSection(bytes: $0).field(at: 0) }
            #expect(field.type == .pointer && field.size == target, "\(encoded)")
        }
    }

    @Test func containers() throws {
        #expect(try decode(hex("0004")) == .array([]))
        #expect(try decode(hex("020443466f6f43e4baba")) == .array([
            .string("Foo"), .string("人"),
        ]))
        #expect(try decode(hex("e0")) == .map([:]))
        #expect(
            try decode(hex("e1446e616d65e242656e43466f6f427a6843e4baba"))
                == .map(["name": .map(["en": .string("Foo"), "zh": .string("人")])]))
        #expect(try decode(hex("e1496c616e677561676573020442656e427a68")) == .map([
            "languages": .array([.string("en"), .string("zh")]),
        ]))
        // maps-with-pointers.raw, MaxMind's file of maps whose keys and values are pointers.
        let raw = try [UInt8](Data(contentsOf: Fixtures.directory.appendingPathComponent("mmdb/maps-with-pointers.raw")))
        let expected: [(Int, String, String)] = [
            (0, "long_key", "long_value1"), (22, "long_key", "long_value2"), (37, "long_key2", "long_value1"),
            (50, "long_key2", "long_value2"), (55, "long_key", "long_value1"), (57, "long_key2", "long_value2"),
        ]
        for (offset, key, value) in expected {
            #expect(try decode(raw, at: offset) == .map([key: .string(value)]), "offset \(offset)")
        }
        // A pointer may lead to an array holding another pointer.
        #expect(try decode([0xa0, 0x01, 0x04] + pointer(0) + pointer(1), at: 5) == .array([.uint16(0)]))
    }

    @Test func malformedFieldsAreRefused() {
        expectRefused([], "outside the section")
        expectRefused([0x5f], "cut off")
        expectRefused([0x20], "cut off")
        expectRefused([0x00], "cut off")
        // Extended type 0 would be a second spelling of a map; 12 and 13 are deprecated; 16 and up do not exist.
        expectRefused([0x00, 0x00], "below 8")
        expectRefused([0x00, 0x05], "unknown data type 12")
        expectRefused([0x00, 0x06], "unknown data type 13")
        expectRefused([0x00, 0x09], "unknown data type 16")
        // Fixed sizes: a uint16 of 3 bytes, an int32 of 5, a uint128 of 17, a double of 4, a float of 8.
        expectRefused([0xa3, 1, 2, 3], "uint16 of 3 bytes")
        expectRefused([0x05, 0x01, 1, 2, 3, 4, 5], "int32 of 5 bytes")
        expectRefused([0x11, 0x03] + [UInt8](repeating: 1, count: 17), "uint128 of 17 bytes")
        expectRefused([0x64, 1, 2, 3, 4], "double of 4 bytes")
        expectRefused([0x08, 0x08, 1, 2, 3, 4, 5, 6, 7, 8], "float of 8 bytes")
        expectRefused([0x42, 0xff, 0xfe], "not UTF-8")
        // A key must be a string.
        expectRefused([0xe1, 0xa1, 0x01, 0xa0], "key that is not a string")
        // A pointer to a pointer, and a pointer to itself.
        expectRefused([0xa0] + pointer(0) + [0x02, 0x04] + pointer(1) + pointer(1), at: 3, "pointer to a pointer")
        expectRefused(pointer(0), "pointer to a pointer")
        // A pointer past the end.
        expectRefused(pointer(5), "outside the section")
    }

    @Test func depthLimit() throws {
        // 512 nested one-element arrays decode; 513 do not.
        _ = try decode([UInt8]([0x01, 0x04]).repeated(512) + [0xa0])
        expectRefused([UInt8]([0x01, 0x04]).repeated(513) + [0xa0], "nested beyond")
        _ = try decode([UInt8]([0xe1, 0x41, 0x61]).repeated(512) + [0xa0])
        expectRefused([UInt8]([0xe1, 0x41, 0x61]).repeated(513) + [0xa0], "nested beyond")
        // A pointer followed is a level too: 256 array-and-pointer levels are 512, 257 are one too many.
        func chain(_ levels: Int) -> ([UInt8], Int) {
            var bytes: [UInt8] = [0xa0]
            var previous = 0
            for _ in 0..<levels {
                let offset = bytes.count
                bytes += [0x01, 0x04] + pointer(previous)
                previous = offset
            }
            return (bytes, previous)
        }
        let (fits, start) = chain(256)
        _ = try decode(fits, at: start)
        let (deep, top) = chain(257)
        expectRefused(deep, at: top, "nested beyond")
        // An array holding a pointer to itself ends at the depth limit.
        expectRefused([0x01, 0x04] + pointer(0), "nested beyond")
        // Siblings do not add up: 600 empty maps in an array are two levels.
        let siblings: [UInt8] = [0x1e, 0x04, 0x01, 0x3b] + [UInt8](repeating: 0xe0, count: 600)
        #expect(try decode(siblings) == .array([MaxMindValue](repeating: .map([:]), count: 600)))
    }

    @Test func valueLimit() throws {
        /// A uint16 at offset 0 and at offset 1 an array of `count` pointers to it.
        func pointers(_ count: Int) -> [UInt8] {
            [0xa0, 0x1e, 0x04, UInt8((count - 285) >> 8), UInt8((count - 285) & 0xff)]
                + pointer(0).repeated(count)
        }
        // The root and 65 535 elements are 65 536 values: the limit. One more is refused, every time (the budget is
        // per decode).
        #expect(try decode(pointers(65535), at: 1) == .array([MaxMindValue](repeating: .uint16(0), count: 65535)))
        #expect(try decode(pointers(65535), at: 1) == .array([MaxMindValue](repeating: .uint16(0), count: 65535)))
        expectRefused(pointers(65536), at: 1, "limits (values)")
        // A declared size beyond the limit is refused before any element is read (none follow here).
        expectRefused([0x1e, 0x04, 0xfe, 0xe3], "limits (values)")
        expectRefused([0xfe, 0x7e, 0xe4], "limits (values)")
        // A fan-out of 100 levels, each an array of two pointers to the level below (2^100 leaves unbounded).
        var fan: [UInt8] = [0xa0]
        var previous = 0
        for _ in 0..<100 {
            let offset = fan.count
            fan += [0x02, 0x04] + pointer(previous) + pointer(previous)
            previous = offset
        }
        expectRefused(fan, at: previous, "limits (values)")
    }

    @Test func payloadLimit() throws {
        /// A one-element array holding a 1 MiB string, then an array of `count` pointers to it.
        func wrapped(_ count: Int) -> ([UInt8], Int) {
            let size = 1 << 20
            var leaf: [UInt8] = [0x01, 0x04, 0x5f]
            leaf += [UInt8((size - 65821) >> 16), UInt8((size - 65821) >> 8 & 0xff), UInt8((size - 65821) & 0xff)]
            leaf += [UInt8](repeating: 0x61, count: size)
            return (leaf + [UInt8(count), 0x04] + pointer(0).repeated(count), leaf.count)
        }
        let (two, start) = wrapped(2)
        let mebibyte = MaxMindValue.array([.string(String(repeating: "a", count: 1 << 20))])
        #expect(try decode(two, at: start) == .array([mebibyte, mebibyte]))
        let (three, over) = wrapped(3)
        expectRefused(three, at: over, "limits (payload)")
    }
}

extension Array {
    func repeated(_ count: Int) -> [Element] { [[Element]](repeating: self, count: count).flatMap { $0 } }
}

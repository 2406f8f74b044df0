import Foundation
import Testing

@testable import CoreLocationSources

/// The declared encoding is checked before libxml2 sees the document (decision 0021): the ones libxml2
/// decodes itself are read, every other one is a `GPXError` on line 1 instead of a crash inside libxml2.
@Suite("GPX encodings")
struct GPXEncodingTests {
    static func document(_ declaration: String, name: String = "A") -> String {
        """
        \(declaration)<gpx version="1.1"><trk><name>\(name)</name><trkseg>
        <trkpt lat="45.5" lon="13.25"><time>2024-01-01T00:00:00Z</time></trkpt>
        <trkpt lat="45.75" lon="13.5"><time>2024-01-01T00:00:10Z</time></trkpt>
        </trkseg></trk></gpx>

        """
    }

    static func expectTwoPoints(_ points: [RoutePoint]) {
        #expect(points.map(\.latitude) == [45.5, 45.75])
        #expect(points.map(\.longitude) == [13.25, 13.5])
        #expect(points.last?.time == Date(timeIntervalSince1970: 1_704_067_210))
    }

    @Test("the fuzzer's UTF-7 document (it crashed inside libxml2) is refused on line 1, from bytes and from a file")
    func fuzzReproducer() throws {
        let data = try fixture("fuzz-crash-utf7.gpx")
        #expect(String(decoding: data.prefix(38), as: UTF8.self) == #"<?xml version="1.0" encoding="UTF-7"?>"#)
        for attempt in [
            { try GPXParser().points(from: data) },
            { try GPXParser().route(contentsOfFile: fixturePath("fuzz-crash-utf7.gpx")).points },
        ] {
            let error = try #require(throws: GPXError.self) { _ = try attempt() }
            #expect(error.code == .unsupportedEncoding)
            #expect(error.line == 1)
            #expect(error.message.contains("\"UTF-7\""), "\(error)")
        }
    }

    @Test("the fuzzer's UTF-16 document whose declaration breaks off (it crashed inside libxml2) is refused")
    func fuzzReproducerUTF16() throws {
        let data = try fixture("fuzz-crash-utf16-declaration.gpx")
        #expect(data.prefix(10) == Data([0xFF, 0xFE, 0x3C, 0, 0x3F, 0, 0x78, 0, 0x6D, 0]))  // BOM, "<?xm"
        let error = try #require(throws: GPXError.self) { try GPXParser().points(from: data) }
        #expect(error.code == .unsupportedEncoding)
        #expect(error.message.contains("does not parse"), "\(error)")
    }

    @Test("a processing instruction without data (FoundationXML passed its null data to strlen) is refused")
    func fuzzReproducerInstructionWithoutData() throws {
        let data = try fixture("fuzz-crash-pi-without-data.gpx")
        #expect(data.prefix(4) == Data([0xFF, 0xFE, 0x3C, 0x00]))  // UTF-16LE BOM, "<"
        let error = try #require(throws: GPXError.self) { try GPXParser().points(from: data) }
        #expect(error.code == .malformedXML)
        #expect(error.message.contains("processing instruction without data"), "\(error)")
        // The same in UTF-8, and with data (which GPX files may carry, e.g. a stylesheet) it is read.
        let bare = Data("<?xml version=\"1.0\"?>\n<?xm?>\n<gpx version=\"1.1\"></gpx>".utf8)
        let refused = try #require(throws: GPXError.self) { try GPXParser().points(from: bare) }
        #expect(refused.message.contains("processing instruction without data"), "\(refused)")
        let withData = Data(
            ("<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"a.xsl\"?>\n"
                + "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"45\" lon=\"13\"/></trkseg></trk></gpx>").utf8)
        #expect(try GPXParser().points(from: withData).count == 1)
    }

    @Test("the fuzzer's UTF-16 document with an unpaired surrogate (it crashed inside libxml2) is refused")
    func fuzzReproducerSurrogate() throws {
        let data = try fixture("fuzz-crash-utf16-surrogate.gpx")
        #expect(data.prefix(4) == Data([0, 0x3C, 0, 0x3F]))  // UTF-16BE "<?", a well-formed declaration
        #expect(data.range(of: Data([0xDB, 0xC8, 0x00, 0x35])) != nil)  // a high surrogate, then "5"
        let error = try #require(throws: GPXError.self) { try GPXParser().points(from: data) }
        #expect(error.code == .unsupportedEncoding)
        #expect(error.message.contains("unpaired surrogate"), "\(error)")
        // A valid pair (U+1F600) in the same place gets through to the XML parser: the point's lat is then
        // simply not a number.
        var fixed = data
        let at = try #require(data.range(of: Data([0xDB, 0xC8, 0x00, 0x35])))
        fixed.replaceSubrange(at, with: [0xD8, 0x3D, 0xDE, 0x00])
        let readable = try #require(throws: GPXError.self) { try GPXParser().points(from: fixed) }
        #expect(readable.code == .invalidNumber)
        #expect(readable.message.contains("45.\u{1F600}"), "\(readable)")
    }

    @Test("a UTF-16 document that ends inside a character is refused")
    func oddLengthUTF16() throws {
        let text = try #require(Self.document(#"<?xml version="1.0" encoding="UTF-16"?>"#).data(using: .utf16BigEndian))
        let error = try #require(throws: GPXError.self) { try GPXParser().points(from: text + Data([0x00])) }
        #expect(error.code == .unsupportedEncoding)
        #expect(error.message.contains("ends inside a character"), "\(error)")
    }

    @Test("what starts like a declaration but is not one is refused; <?xml-stylesheet is left to the XML parser")
    func brokenDeclarationStarts() throws {
        for text in ["<?xml;", "<?xm\u{3B6C}"] {
            let data = Data([0xFF, 0xFE]) + (try #require((text + Self.document("")).data(using: .utf16LittleEndian)))
            let error = try #require(throws: GPXError.self) { try GPXParser().points(from: data) }
            #expect(error.code == .unsupportedEncoding, "\(text)")
        }
        let stylesheet = #"<?xml-stylesheet type="text/xsl" href="t.xsl"?>"# + Self.document("")
        Self.expectTwoPoints(try GPXParser().points(from: Data(stylesheet.utf8)))
    }

    @Test(
        "declarations libxml2 decodes itself are read",
        arguments: [
            "", #"<?xml version="1.0"?>"#, #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<?xml version='1.0' encoding='utf-8' standalone='yes'?>"#,
            #"<?xml version="1.0" encoding="US-ASCII"?>"#, "<?xml version=\"1.0\"\n  encoding = \"ISO-8859-1\" ?>",
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
        ]
    )
    func accepted(declaration: String) throws {
        Self.expectTwoPoints(try GPXParser().points(from: Data(Self.document(declaration).utf8)))
    }

    @Test("an ISO-8859-1 document with a Latin-1 byte, and UTF-16 with and without a byte-order mark, are read")
    func otherBuiltInEncodings() throws {
        let latin1 = try #require(
            Self.document(#"<?xml version="1.0" encoding="ISO-8859-1"?>"#, name: "Caf\u{E9}").data(using: .isoLatin1)
        )
        #expect(latin1.contains(0xE9))
        Self.expectTwoPoints(try GPXParser().points(from: latin1))
        let text = Self.document(#"<?xml version="1.0" encoding="UTF-16"?>"#)
        let littleWithMark = Data([0xFF, 0xFE]) + (try #require(text.data(using: .utf16LittleEndian)))
        let bigWithoutMark = try #require(text.data(using: .utf16BigEndian))
        #expect(bigWithoutMark.prefix(4) == Data([0, 0x3C, 0, 0x3F]))
        Self.expectTwoPoints(try GPXParser().points(from: littleWithMark))
        Self.expectTwoPoints(try GPXParser().points(from: bigWithoutMark))
    }

    @Test(
        "other encodings, UCS-4 and EBCDIC documents and declarations that do not parse are refused on line 1",
        arguments: [
            (#"<?xml version="1.0" encoding="UTF-7"?>"#, "\"UTF-7\""),
            (#"<?xml version='1.0' encoding='utf-7'?>"#, "\"utf-7\""),
            ("<?xml version=\"1.0\" encoding\t=\n'Shift_JIS'?>", "\"Shift_JIS\""),
            (#"<?xml version="1.0" encoding="EBCDIC-US"?>"#, "\"EBCDIC-US\""),
            (#"<?xml version="1.0" encoding="UTF-32"?>"#, "\"UTF-32\""),
            (#"<?xml version="1.0" ENCODING="UTF-7"?>"#, "\"ENCODING\""),
            (#"<?xml version="1.0" encoding=UTF-7?>"#, "does not parse"),
            (#"<?xml version="1.0" encoding="UTF-7"#, "does not parse"),
            (#"<?xml version="1.0""# + String(repeating: " ", count: 1100) + "?>", "does not end within 1 KB"),
        ]
    )
    func refused(declaration: String, named: String) throws {
        let error = try #require(throws: GPXError.self) {
            try GPXParser().points(from: Data(Self.document(declaration).utf8))
        }
        #expect(error.code == .unsupportedEncoding)
        #expect(error.line == 1)
        #expect(error.message.contains(named), "\(error)")
        #expect(error.message.contains("UTF-8, US-ASCII, ISO-8859-1 or UTF-16"))
    }

    @Test("UCS-4 and EBCDIC byte patterns, and a UTF-16 document declaring UTF-8, are refused")
    func refusedByBytes() throws {
        let text = Self.document(#"<?xml version="1.0"?>"#)
        let ucs4 = try #require(text.data(using: .utf32BigEndian))
        let ebcdic = Data([0x4C, 0x6F, 0xA7, 0x94, 0x93, 0x40]) + Data(text.utf8)
        let lying = try #require(
            Self.document(#"<?xml version="1.0" encoding="UTF-8"?>"#).data(using: .utf16LittleEndian)
        )
        for (data, what) in [(ucs4, "UCS-4"), (ebcdic, "EBCDIC"), (lying, "UTF-16 document")] {
            let error = try #require(throws: GPXError.self) { try GPXParser().points(from: data) }
            #expect(error.code == .unsupportedEncoding)
            #expect(error.message.contains(what), "\(error)")
        }
    }

    @Test("a document much longer than the bytes read for the check is read whole (the head is given back)")
    func longDocument() throws {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<gpx version=\"1.1\"><trk><trkseg>\n"
        for index in 0..<3000 {
            text += #"<trkpt lat="\#(Double(index) / 1000)" lon="\#(Double(index) / 2000)"></trkpt>"# + "\n"
        }
        text += "</trkseg></trk></gpx>\n"
        #expect(text.utf8.count > 50 * GPXEncodingCheck.headLength)
        let points = try GPXParser().points(from: Data(text.utf8))
        #expect(points.count == 3000)
        #expect(points.map(\.latitude) == (0..<3000).map { Double($0) / 1000 })
        #expect(points.last?.longitude == 2999.0 / 2000)
    }

    @Test("a document shorter than the head, and an empty one, keep their usual errors")
    func shortDocuments() throws {
        let empty = try #require(throws: GPXError.self) { try GPXParser().points(from: Data()) }
        #expect(empty.code == .malformedXML)
        let tiny = try #require(throws: GPXError.self) { try GPXParser().points(from: Data("<gpx/>".utf8)) }
        #expect(tiny.code == .noPoints)
    }
}

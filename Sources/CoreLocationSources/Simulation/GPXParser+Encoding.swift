import Foundation

/// The character encodings a GPX document may declare, checked before libxml2 sees a byte.
///
/// libxml2 hands any other declared encoding to iconv, and with some of them (UTF-7 found by the fuzzer,
/// `.fuzz/crashes/gpx/`) it crashes inside `XMLParser`. GPX writers use UTF-8 (the GPX schema's own
/// declaration); libxml2 decodes UTF-8, US-ASCII, ISO-8859-1 and UTF-16 itself, without iconv. Anything
/// else — another declared encoding, a UCS-4 or EBCDIC document, a declaration that does not parse — is
/// refused with `GPXError.Code.unsupportedEncoding` on line 1 (docs/decisions/0021).
enum GPXEncodingCheck {
    /// How much of the document is read to find the declaration; a real one is under 100 bytes.
    static let headLength = 1024

    /// Upper-cased encoding names accepted, as libxml2 spells its built-in decoders and their aliases.
    static let accepted: Set<String> = [
        "UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-1", "ISO_8859-1", "ISO-LATIN-1", "ISO LATIN 1", "LATIN1",
        "LATIN-1", "UTF-16", "UTF16", "UTF-16LE", "UTF-16BE",
    ]

    /// Reads the start of `stream`, checks its XML declaration, and returns a stream that gives the whole
    /// document again (the bytes read here, then the rest of `stream`).
    /// - Throws: `GPXError` (`.unsupportedEncoding`).
    static func checked(_ stream: InputStream) throws -> PrefixedInputStream {
        stream.open()
        var head = [UInt8](repeating: 0, count: headLength)
        var count = 0
        while count < headLength, stream.streamStatus != .atEnd {
            let read = head.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { stream.read($0 + count, maxLength: headLength - count) } ?? -1
            }
            guard read > 0 else { break }
            count += read
        }
        head.removeSubrange(count...)
        let bigEndian = try check(head)
        return PrefixedInputStream(head: head, rest: stream, utf16BigEndian: bigEndian)
    }

    /// Checks the document whose first bytes are `head` (all of it when it is shorter than `headLength`).
    /// - Returns: for a UTF-16 document, whether it is big-endian; nil for the 8-bit encodings.
    @discardableResult
    static func check(_ head: [UInt8]) throws -> Bool? {
        let text: [UInt8]
        let sixteenBit: Bool
        var bigEndian: Bool?
        switch head.prefix(4).map({ $0 }) {
        case [0, 0, 0xFE, 0xFF], [0xFF, 0xFE, 0, 0], [0, 0, 0, 0x3C], [0x3C, 0, 0, 0], [0, 0, 0x3C, 0], [0, 0x3C, 0, 0]:
            throw refusal("a UCS-4 (UTF-32) document")
        case [0x4C, 0x6F, 0xA7, 0x94]:
            throw refusal("an EBCDIC document")
        case let start where start.starts(with: [0xFE, 0xFF]) || start.starts(with: [0, 0x3C, 0, 0x3F]):
            (text, sixteenBit, bigEndian) = (narrow(head, highFirst: true), true, true)
        case let start where start.starts(with: [0xFF, 0xFE]) || start.starts(with: [0x3C, 0, 0x3F, 0]):
            (text, sixteenBit, bigEndian) = (narrow(head, highFirst: false), true, false)
        case let start where start.starts(with: [0xEF, 0xBB, 0xBF]):
            (text, sixteenBit) = (Array(head.dropFirst(3)), false)
        default:
            (text, sixteenBit) = (head, false)
        }
        guard let encoding = try declaredEncoding(text) else { return bigEndian }
        let name = encoding.uppercased()
        guard accepted.contains(name) else {
            throw refusal("encoding \"\(encoding)\"")
        }
        if sixteenBit, !name.hasPrefix("UTF-16"), name != "UTF16" {
            throw refusal("a UTF-16 document that declares \"\(encoding)\"")
        }
        return bigEndian
    }

    /// The 16-bit code units of `bytes` (after a byte-order mark) as bytes while they are ASCII: enough
    /// to read the declaration.
    private static func narrow(_ bytes: [UInt8], highFirst: Bool) -> [UInt8] {
        var start = 0
        if bytes.count >= 2, (bytes[0], bytes[1]) == (0xFE, 0xFF) || (bytes[0], bytes[1]) == (0xFF, 0xFE) { start = 2 }
        var out: [UInt8] = []
        var index = start
        while index + 1 < bytes.count {
            let (high, low) = highFirst ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            guard high == 0, low < 0x80 else { break }
            out.append(low)
            index += 2
        }
        return out
    }

    /// The value of the declaration's `encoding`, nil when the document has no declaration or the
    /// declaration names none.
    /// - Throws: `GPXError` when the declaration does not parse (libxml2 could read it otherwise).
    static func declaredEncoding(_ text: [UInt8]) throws -> String? {
        let open = Array("<?xml".utf8)
        guard text.starts(with: open), text.count > open.count, isSpace(text[open.count]) else {
            // What could be the start of a declaration but is not one ("<?xm" then a non-ASCII UTF-16 unit,
            // "<?xml;"): libxml2 crashed on such a UTF-16 document (fuzz-crash-utf16-declaration.gpx).
            // "<?xml-stylesheet …?>" is an ordinary processing instruction and is left to libxml2.
            let start = Array(text.prefix(open.count + 1))
            if start.count >= 2, Array("<?xml ".utf8).starts(with: start.dropLast(start.count > open.count ? 1 : 0)),
               start.count <= open.count || start[open.count] != UInt8(ascii: "-")
            {
                throw refusal("an XML declaration that does not parse")
            }
            return nil
        }
        var index = open.count
        var encoding: String?
        while true {
            while index < text.count, isSpace(text[index]) { index += 1 }
            guard index < text.count else { throw refusal("an XML declaration that does not end within 1 KB") }
            if text[index] == UInt8(ascii: "?") {
                guard index + 1 < text.count, text[index + 1] == UInt8(ascii: ">") else {
                    throw refusal("an XML declaration that does not parse")
                }
                return encoding
            }
            let nameStart = index
            while index < text.count, isNameByte(text[index]) { index += 1 }
            let name = String(decoding: text[nameStart..<index], as: UTF8.self)
            while index < text.count, isSpace(text[index]) { index += 1 }
            guard index < text.count, text[index] == UInt8(ascii: "=") else {
                throw refusal("an XML declaration that does not parse")
            }
            index += 1
            while index < text.count, isSpace(text[index]) { index += 1 }
            guard index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") else {
                throw refusal("an XML declaration that does not parse")
            }
            let quote = text[index]
            index += 1
            let valueStart = index
            while index < text.count, text[index] != quote { index += 1 }
            guard index < text.count else { throw refusal("an XML declaration that does not end within 1 KB") }
            let value = String(decoding: text[valueStart..<index], as: UTF8.self)
            index += 1
            switch name {
            case "version", "standalone": break
            case "encoding" where encoding == nil: encoding = value
            default: throw refusal("an XML declaration with \"\(name)\"")
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte)
    }

    private static func refusal(_ what: String) -> GPXError {
        GPXError(
            code: .unsupportedEncoding, line: 1,
            message: "\(what) is not supported: a GPX file is UTF-8, US-ASCII, ISO-8859-1 or UTF-16"
        )
    }
}

/// A stream that gives `head`, then what `rest` (already open) still holds. Only what `XMLParser` uses
/// is provided: open, read, close, status and error. Used by one parse on one thread.
///
/// A UTF-16 document is checked as it passes: libxml2's push parser crashes on an unpaired surrogate
/// (found by the fuzzer: `fuzz-crash-utf16-surrogate.gpx`), so the read that would hand one over fails
/// instead, and `encodingError` says why.
final class PrefixedInputStream: InputStream {
    private let head: [UInt8]
    private var offset = 0
    private let rest: InputStream
    private var finished = false
    /// UTF-16 byte order; nil for an 8-bit document (nothing to check).
    private let utf16BigEndian: Bool?
    /// The first byte of a code unit whose second byte has not been read yet.
    private var pendingByte: UInt8?
    /// Whether the last complete unit was a high surrogate.
    private var awaitingLowSurrogate = false
    /// Set when the document is not valid UTF-16, or holds a processing instruction without data; the read
    /// that found it returned -1.
    private(set) var encodingError: GPXError?
    /// Where the scan for `<?target?>` stands (see `scan(_:)`).
    private var instruction = InstructionScan.text

    /// A processing instruction with no data (`<?target?>`) makes libxml2 hand FoundationXML a null pointer,
    /// which it passes to `strlen` (a crash the fuzzer found: `fuzz-crash-pi-without-data.gpx`). GPX has no
    /// use for processing instructions; one without data is refused before the parser sees it. The scan
    /// looks at characters below U+0080 only (bytes of an 8-bit document, code units of a UTF-16 one), so
    /// `<?x?>` written literally inside a comment or CDATA section is refused too.
    private enum InstructionScan {
        case text, lessThan, target, question
    }

    init(head: [UInt8], rest: InputStream, utf16BigEndian: Bool?) {
        self.head = head
        self.rest = rest
        self.utf16BigEndian = utf16BigEndian
        super.init(data: Data())
    }

    override func open() {}

    override func close() { rest.close() }

    override var hasBytesAvailable: Bool { encodingError == nil && (offset < head.count || rest.hasBytesAvailable) }

    override var streamStatus: Stream.Status {
        if encodingError != nil { return .error }
        if offset < head.count { return .open }
        return finished ? .atEnd : rest.streamStatus
    }

    override var streamError: (any Error)? { encodingError ?? rest.streamError }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard encodingError == nil else { return -1 }
        var count = 0
        if offset < head.count {
            count = min(length, head.count - offset)
            head.withUnsafeBufferPointer { bytes in
                if let start = bytes.baseAddress { buffer.update(from: start + offset, count: count) }
            }
            offset += count
        } else if !finished, rest.streamStatus != .atEnd {
            count = rest.read(buffer, maxLength: length)
        }
        guard count >= 0 else { return count }
        if count == 0 {
            finished = true
            if utf16BigEndian != nil, pendingByte != nil || awaitingLowSurrogate {
                return fail("the UTF-16 document ends inside a character")
            }
            return 0
        }
        if let bigEndian = utf16BigEndian {
            for index in 0..<count {
                guard let first = pendingByte else {
                    pendingByte = buffer[index]
                    continue
                }
                pendingByte = nil
                let (high, low) = bigEndian ? (first, buffer[index]) : (buffer[index], first)
                let unit = UInt16(high) << 8 | UInt16(low)
                let isHigh = (0xD800...0xDBFF).contains(unit), isLow = (0xDC00...0xDFFF).contains(unit)
                if awaitingLowSurrogate != isLow { return fail("invalid UTF-16: an unpaired surrogate") }
                awaitingLowSurrogate = isHigh
                if !scan(unit) { return failInstruction() }
            }
        } else {
            for index in 0..<count where !scan(UInt16(buffer[index])) { return failInstruction() }
        }
        return count
    }

    /// Advances the `<?target?>` scan by one character; false when one has just been completed.
    private func scan(_ character: UInt16) -> Bool {
        let isSpace = character == 0x20 || character == 0x09 || character == 0x0A || character == 0x0D
        switch (instruction, character) {
        case (_, 0x3C): instruction = .lessThan  // "<"
        case (.lessThan, 0x3F): instruction = .target  // "<?"
        case (.target, 0x3F), (.question, 0x3F): instruction = .question  // "?"
        case (.question, 0x3E): return false  // "?>" before any space: no data
        case (.target, _), (.question, _): instruction = isSpace ? .text : .target
        default: instruction = .text
        }
        return true
    }

    private func failInstruction() -> Int {
        encodingError = GPXError(
            code: .malformedXML, line: 1,
            message: "a processing instruction without data (<?name?>), which the XML parser cannot read")
        return -1
    }

    private func fail(_ message: String) -> Int {
        encodingError = GPXError(code: .unsupportedEncoding, line: 1, message: message)
        return -1
    }
}

/// Decodes single NMEA 0183 lines (without the line ending) into `NMEASentence`s.
///
/// The parser works on the caller's bytes in place: no `String`, no Foundation, no allocation per
/// field (a sentence's satellite lists are stored inline). Every line ends in exactly one of three
/// ways, each counted in `statistics`: decoded, ignored (well-formed, type not used), or dropped with
/// a reason. Checksums are required: a line without `*hh` is dropped.
public struct NMEAParser: Sendable {
    public private(set) var statistics = NMEAStatistics()

    public init() {}

    /// What became of one line.
    public enum Outcome: Sendable, Hashable {
        case sentence(NMEASentence)
        case ignored
        case dropped(NMEAFailure)
    }

    /// Decodes a line and counts the outcome; nil unless a sentence came out.
    public mutating func parse(_ line: UnsafeRawBufferPointer) -> NMEASentence? {
        var verdict = Verdict.decoded
        let sentence = Self.decode(line, verdict: &verdict)
        switch verdict {
        case .decoded: statistics.decoded += 1
        case .ignored: statistics.ignored += 1
        case .dropped(let failure): statistics.record(failure)
        }
        return sentence
    }

    /// What became of a line, without the sentence (so the sentence is copied only once).
    enum Verdict {
        case decoded
        case ignored
        case dropped(NMEAFailure)
    }

    public mutating func parse(_ line: [UInt8]) -> NMEASentence? {
        line.withUnsafeBytes { parse($0) }
    }

    /// Counts a line the splitter dropped for its length.
    public mutating func recordOverlong() { statistics.record(.overlong) }

    /// Decodes one line without counting. Trailing `\r`/`\n` are tolerated.
    public static func decode(_ line: UnsafeRawBufferPointer) -> Outcome {
        var verdict = Verdict.decoded
        let sentence = decode(line, verdict: &verdict)
        switch verdict {
        case .decoded: return sentence.map(Outcome.sentence) ?? .ignored
        case .ignored: return .ignored
        case .dropped(let failure): return .dropped(failure)
        }
    }

    static func decode(_ line: UnsafeRawBufferPointer, verdict: inout Verdict) -> NMEASentence? {
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0D || line[end - 1] == 0x0A) { end -= 1 }
        guard end > 0, line[0] == UInt8(ascii: "$") || line[0] == UInt8(ascii: "!") else {
            return drop(.notASentence, &verdict)
        }
        // Checksum: XOR of everything between the start character and `*`.
        var checksum: UInt8 = 0
        var index = 1
        var star = -1
        // Eight bytes at a time (SWAR) while they are all printable and hold no `*`; the byte loop
        // below finishes and classifies whatever stopped the fast path.
        if let base = line.baseAddress {
            var lanes: UInt64 = 0
            while index + 8 <= end {
                let word = UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
                if SWAR.hasByteBelow0x20(word) || SWAR.hasByteAbove0x7E(word) || SWAR.hasByte(word, 0x2A) {
                    break
                }
                lanes ^= word
                index += 8
            }
            lanes ^= lanes >> 32
            lanes ^= lanes >> 16
            lanes ^= lanes >> 8
            checksum = UInt8(truncatingIfNeeded: lanes)
        }
        while index < end {
            let byte = line[index]
            if byte < 0x20 || byte > 0x7E { return drop(.nonPrintable, &verdict) }
            if byte == UInt8(ascii: "*") {
                star = index
                break
            }
            checksum ^= byte
            index += 1
        }
        guard star >= 0, end - star == 3 else {
            if star >= 0 {
                for position in star..<end where line[position] < 0x20 || line[position] > 0x7E {
                    return drop(.nonPrintable, &verdict)
                }
            }
            return drop(.missingChecksum, &verdict)
        }
        guard let high = hexValue(line[star + 1]), let low = hexValue(line[star + 2]) else {
            return drop(.missingChecksum, &verdict)
        }
        guard high << 4 | low == checksum else { return drop(.badChecksum, &verdict) }
        if line[0] == UInt8(ascii: "!") {  // AIS and other encapsulated data
            verdict = .ignored
            return nil
        }

        // Address: 2-letter talker + 3-letter type, then a comma. Proprietary `$P…` is not decoded.
        var comma = 1
        while comma < star && line[comma] != UInt8(ascii: ",") { comma += 1 }
        let addressLength = comma - 1
        if addressLength >= 1 && line[1] == UInt8(ascii: "P") {
            verdict = .ignored
            return nil
        }
        guard addressLength >= 5 else { return drop(.truncated, &verdict) }
        guard addressLength == 5 else {
            verdict = .ignored
            return nil
        }
        let talker = NMEATalker(first: line[1], second: line[2])
        let type = UInt32(line[3]) << 16 | UInt32(line[4]) << 8 | UInt32(line[5])
        var cursor = NMEAFieldCursor(bytes: line, start: comma + 1, end: star)
        if comma >= star {
            // A bare address with no fields at all.
            cursor = NMEAFieldCursor(bytes: line, start: star + 1, end: star)
        }
        let body: NMEASentence.Body?
        do throws(NMEADecodeError) {
            switch type {
            case Self.typeGGA: body = .gga(try decodeGGA(&cursor))
            case Self.typeRMC: body = .rmc(try decodeRMC(&cursor))
            case Self.typeGLL: body = .gll(try decodeGLL(&cursor))
            case Self.typeVTG: body = .vtg(try decodeVTG(&cursor))
            case Self.typeGSA: body = .gsa(try decodeGSA(&cursor))
            case Self.typeGSV: body = .gsv(try decodeGSV(&cursor))
            case Self.typeGST: body = .gst(try decodeGST(&cursor))
            case Self.typeGNS: body = .gns(try decodeGNS(&cursor))
            case Self.typeZDA: body = .zda(try decodeZDA(&cursor))
            case Self.typeHDT: body = .hdt(try decodeHDT(&cursor))
            case Self.typeHDG: body = .hdg(try decodeHDG(&cursor))
            case Self.typeTHS: body = .ths(try decodeTHS(&cursor))
            default: body = nil
            }
        } catch {
            verdict = .dropped(error.failure)
            return nil
        }
        guard let body else {
            verdict = .ignored
            return nil
        }
        return NMEASentence(talker: talker, body: body)
    }

    private static func drop(_ failure: NMEAFailure, _ verdict: inout Verdict) -> NMEASentence? {
        verdict = .dropped(failure)
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func code(_ text: StaticString) -> UInt32 {
        let bytes = text.utf8Start
        return UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2])
    }

    static let typeGGA = code("GGA")
    static let typeRMC = code("RMC")
    static let typeGLL = code("GLL")
    static let typeVTG = code("VTG")
    static let typeGSA = code("GSA")
    static let typeGSV = code("GSV")
    static let typeGST = code("GST")
    static let typeGNS = code("GNS")
    static let typeZDA = code("ZDA")
    static let typeHDT = code("HDT")
    static let typeHDG = code("HDG")
    static let typeTHS = code("THS")
}

/// A decoding failure inside one sentence type (thrown by the per-type decoders; typed throws keep
/// it allocation-free).
struct NMEADecodeError: Error {
    let failure: NMEAFailure
    static let truncated = NMEADecodeError(failure: .truncated)
    static let invalid = NMEADecodeError(failure: .invalidField)
}

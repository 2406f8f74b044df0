import Foundation
import Testing

@testable import CoreLocationSources

/// The splitter must give the same lines whatever the chunking (drip-fed one byte at a time, in
/// odd sizes, or all at once), as swift-nio's ByteToMessageDecoderVerifier checks decoders.
@Suite struct NMEALineSplitterTests {
    private func lines(_ bytes: [UInt8], chunk: Int, maximum: Int = 512) -> ([String], Int, Int) {
        var splitter = NMEALineSplitter(maximumLineLength: maximum)
        var out: [String] = []
        var offset = 0
        while offset < bytes.count {
            splitter.feed(Array(bytes[offset..<min(bytes.count, offset + chunk)])) {
                out.append(String(decoding: $0, as: UTF8.self))
            }
            offset += chunk
        }
        let pending = splitter.pendingByteCount
        splitter.finish { out.append(String(decoding: $0, as: UTF8.self)) }
        return (out, splitter.overlongLines, pending)
    }

    @Test func chunkingDoesNotMatter() throws {
        let text = try fixture("nmea/furuno-gt88.nmea") + fixture("nmea/bandg-zeus2.nmea")
        let bytes = Array(text)
        let (reference, _, _) = lines(bytes, chunk: bytes.count)
        #expect(reference.count == text.split(separator: 0x0A).count)
        for size in [1, 2, 3, 7, 64, 81, 82, 83, 1000] {
            #expect(lines(bytes, chunk: size).0 == reference, "chunk size \(size)")
        }
    }

    @Test func terminatorsAndEmptyLines() {
        let bytes = Array("$A*00\r\n\r\n$B*00\n$C*00\r$D*00".utf8)
        for size in [1, 3, 100] {
            let (out, overlong, pending) = lines(bytes, chunk: size)
            #expect(out == ["$A*00", "$B*00", "$C*00", "$D*00"])
            #expect(overlong == 0)
            #expect(pending == 5)  // "$D*00" waited for finish()
        }
    }

    @Test func dollarResynchronises() {
        let bytes = Array("noise$GPGGA,1*00\n$GPRMC,trunc$GPGLL,2*00\n".utf8)
        for size in [1, 5, 100] {
            #expect(lines(bytes, chunk: size).0 == ["noise", "$GPGGA,1*00", "$GPRMC,trunc", "$GPGLL,2*00"])
        }
    }

    @Test func overlongLinesAreCountedAndDropped() {
        let long = String(repeating: "X", count: 100)
        let bytes = Array("$OK*00\n\(long)\n$OK2*00\n$\(long)$NEXT*00\n".utf8)
        for size in [1, 7, 40, 1000] {
            let (out, overlong, _) = lines(bytes, chunk: size, maximum: 50)
            #expect(out == ["$OK*00", "$OK2*00", "$NEXT*00"], "chunk size \(size)")
            #expect(overlong == 2, "chunk size \(size)")
        }
    }

    @Test func binaryGarbageNeverGrowsTheBuffer() {
        var generator = SplitMix64(seed: 7)
        var splitter = NMEALineSplitter(maximumLineLength: 82)
        var longest = 0
        for _ in 0..<200 {
            let chunk = (0..<97).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            splitter.feed(chunk) { longest = max(longest, $0.count) }
            #expect(splitter.pendingByteCount <= 82)
        }
        #expect(longest <= 82)
    }
}

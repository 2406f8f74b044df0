import CoreLocationDaemonProtocol
import Testing

@Suite struct FrameDecoderTests {
    @Test func splitsFramesDeliveredByteByByte() throws {
        let stream = FrameDecoder.frame(Array("abc".utf8)) + FrameDecoder.frame([]) + FrameDecoder.frame([1, 2])
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        for byte in stream {
            decoder.append([byte])
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(frames == [Array("abc".utf8), [], [1, 2]])
        #expect(decoder.bufferedCount == 0)
    }

    @Test func lengthIsBigEndianAndLimited() throws {
        #expect(FrameDecoder.frame([7]).prefix(4) == [0, 0, 0, 1])
        var decoder = FrameDecoder()
        decoder.append([0x00, 0x01, 0x00, 0x01])
        #expect(throws: FrameDecoder.Failure.oversized(length: 65_537, limit: 65_536)) { try decoder.next() }
        var exact = FrameDecoder()
        exact.append(FrameDecoder.frame([UInt8](repeating: 0, count: 65_536)))
        #expect(try exact.next()?.count == 65_536)
    }
}

import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationRuntime
import Foundation
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

    /// The shared-delivery frame is byte for byte the frame the encoder writes, and decodes to the
    /// same message (an infinite course included: "inf" strings), for client numbers of every length
    /// (the frame writes the number itself, not through the encoder).
    @Test(arguments: [0, 1, 9, 10, 42, 99, 100, 1_000_000, 10_000_000_000_000_000_000, UInt64.max])
    func aDeliveryFrameEncodedOnceIsTheEncodersFrame(client: UInt64) throws {
        let fix = Fix(
            latitude: 48.8584, longitude: 2.2945, horizontalAccuracy: 5, course: .infinity,
            timestamp: Date(timeIntervalSinceReferenceDate: 785_000_000.25))
        let delivery = Delivery(fixes: [fix], isStationary: false, accuracyLimited: false, isRequestedLocation: false)
        let message = DaemonMessage.event(sequence: nil, body: .client(client, .delivery(WireDelivery(delivery))))
        let spliced = DaemonProtocol.deliveryFrame(
            client: client, encodedDelivery: try DaemonProtocol.encode(WireDelivery(delivery)))
        #expect(spliced == (try DaemonProtocol.frame(message)))
        #expect(try DaemonProtocol.decode(DaemonMessage.self, from: Array(spliced.dropFirst(4))) == message)
    }

    /// The delivery event as docs/locationd-protocol.md writes it, byte for byte: the fast path and the
    /// encoder both produce it, so neither can change shape alone.
    @Test func aDeliveryFrameIsTheDocumentedShape() throws {
        let delivery = WireDelivery(fixes: [], isStationary: true, accuracyLimited: false, isRequestedLocation: false)
        let expected = Array(
            (#"{"body":{"client":7,"delivery":{"accuracyLimited":false,"fixes":[],"isRequestedLocation":false,"#
                + #""isStationary":true},"type":"deliver"},"type":"event"}"#).utf8)
        #expect(DaemonProtocol.deliveryFrame(client: 7, encodedDelivery: DeliveryJSON.encode(delivery)) == FrameDecoder.frame(expected))
        #expect(try DaemonProtocol.encode(DaemonMessage.event(sequence: nil, body: .client(7, .delivery(delivery)))) == expected)
    }
}

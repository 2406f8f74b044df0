/// Splits a byte stream into frames: a 4-byte big-endian length, then that many bytes of payload.
///
/// Pure and incremental: feed it whatever the socket produced, take out complete frames. A length
/// above `maximumLength` is an error the reader cannot recover from (the stream is out of step), so
/// the peer is told and the connection closed.
public struct FrameDecoder: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// The peer announced a frame longer than the limit.
        case oversized(length: UInt32, limit: Int)
    }

    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(maximumLength: Int = DaemonProtocol.maximumFrameLength) {
        self.maximumLength = maximumLength
    }

    /// Bytes received but not yet part of a complete frame.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame's payload, nil when more bytes are needed.
    public mutating func next() throws(Failure) -> [UInt8]? {
        guard bufferedCount >= 4 else { return nil }
        let length = UInt32(buffer[start]) << 24 | UInt32(buffer[start + 1]) << 16
            | UInt32(buffer[start + 2]) << 8 | UInt32(buffer[start + 3])
        guard Int(length) <= maximumLength else { throw .oversized(length: length, limit: maximumLength) }
        guard bufferedCount >= 4 + Int(length) else { return nil }
        let payload = Array(buffer[(start + 4)..<(start + 4 + Int(length))])
        start += 4 + Int(length)
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return payload
    }

    /// Prefixes `payload` with its length.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        frame(length: payload.count) { $0 += payload }
    }

    /// A frame of `length` payload bytes, which `writePayload` appends after the length, in one array.
    public static func frame(length: Int, _ writePayload: (inout [UInt8]) -> Void) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(4 + length)
        let prefix = UInt32(truncatingIfNeeded: length)
        frame.append(UInt8(truncatingIfNeeded: prefix >> 24))
        frame.append(UInt8(truncatingIfNeeded: prefix >> 16))
        frame.append(UInt8(truncatingIfNeeded: prefix >> 8))
        frame.append(UInt8(truncatingIfNeeded: prefix))
        writePayload(&frame)
        return frame
    }
}

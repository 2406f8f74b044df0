/// Cuts a byte stream into messages, whatever the chunks it arrives in: bytes go in with `append`, whole
/// messages come out of `next()`. A message's length is known from its first 16 bytes and checked against the
/// 128 MiB limit before any more of it is awaited, so a claimed length never makes the reader wait for (or hold)
/// more than that.
package struct DBusFrameReader {
    private var buffer: [UInt8] = []
    private var consumed = 0

    package init() {}

    /// Bytes received and not yet returned in a message.
    package var pending: Int { buffer.count - consumed }

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    package mutating func append(_ bytes: [UInt8]) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Drops what was returned once it is all of the buffer or more than 1 MiB (keeps appends amortised O(1)).
    private mutating func compact() {
        if consumed > 0 && consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        } else if consumed > 1 << 20 {
            buffer.removeFirst(consumed)
            consumed = 0
        }
    }

    /// The next whole message, nil until all its bytes are here. Messages of a type the decoder does not know
    /// are skipped, as the specification says.
    ///
    /// - Throws: `DBusWireError` for bytes that are not a message; the stream cannot be resynchronised after one.
    package mutating func next() throws -> DBusMessage? {
        while true {
            guard let length = try DBusMessage.frameLength(buffer, at: consumed), buffer.count - consumed >= length
            else {
                return nil
            }
            let bytes = Array(buffer[consumed..<(consumed + length)])
            consumed += length
            do {
                return try DBusMessage.decode(bytes)
            } catch let error as DBusWireError where error.code == .badMessageType && bytes[1] != 0 {
                continue
            }
        }
    }
}

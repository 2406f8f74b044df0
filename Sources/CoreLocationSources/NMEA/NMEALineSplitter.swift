/// Cuts a byte stream arriving in arbitrary chunks into lines, with a bound on line length.
///
/// A line ends at `\n` or `\r` (so `\r\n`, `\n` and a bare `\r` all work; empty lines are skipped).
/// A `$` or `!` inside a line starts a new line: it is the sentence start NMEA reserves, so a
/// receiver's partial sentence followed by a fresh one (a resync after noise or a reconnection)
/// costs only the broken part. A line longer than `maximumLineLength` bytes is dropped whole and
/// counted in `overlongLines`; the splitter then waits for the next line end and carries on.
///
/// Lines that lie entirely inside one chunk are handed out in place (no copy); only a line split
/// across chunks is gathered in a buffer allocated once.
public struct NMEALineSplitter: Sendable {
    /// NMEA 0183 allows 82 characters; receivers' proprietary sentences and NMEA 4.11 GSV run
    /// longer, so the default leaves room without letting garbage grow the buffer.
    public static let defaultMaximumLineLength = 512

    public let maximumLineLength: Int
    public private(set) var overlongLines = 0
    private var buffer: [UInt8] = []
    private var discarding = false

    public init(maximumLineLength: Int = Self.defaultMaximumLineLength) {
        self.maximumLineLength = max(1, maximumLineLength)
        buffer.reserveCapacity(self.maximumLineLength)
    }

    /// Bytes of an unfinished line held back for the next chunk.
    public var pendingByteCount: Int { buffer.count }

    /// Feeds a chunk; `body` receives each complete line (without its terminator), valid only
    /// during the call.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var lineStart = 0
        var index = 0
        let count = chunk.count
        while index < count {
            // Skip eight bytes at a time (SWAR) while none of them ends or starts a line.
            if let base = chunk.baseAddress {
                while index + 8 <= count {
                    let word = (base + index).loadUnaligned(as: UInt64.self)
                    if SWAR.hasByte(word, 0x0A) || SWAR.hasByte(word, 0x0D) || SWAR.hasByte(word, 0x24)
                        || SWAR.hasByte(word, 0x21)
                    {
                        break
                    }
                    index += 8
                }
                if index >= count { break }
            }
            let byte = chunk[index]
            if byte == 0x0A || byte == 0x0D {
                finishLine(chunk, from: lineStart, to: index, body)
                lineStart = index + 1
            } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!"),
                index > lineStart || !buffer.isEmpty || discarding
            {
                finishLine(chunk, from: lineStart, to: index, body)
                lineStart = index
            }
            index += 1
        }
        if lineStart < count { hold(chunk, from: lineStart, to: count) }
    }

    public mutating func feed(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> Void) {
        bytes.withUnsafeBytes { feed($0, body) }
    }

    /// Hands out what is left at the end of the stream (a last line without terminator).
    public mutating func finish(_ body: (UnsafeRawBufferPointer) -> Void) {
        if !buffer.isEmpty && !discarding { buffer.withUnsafeBytes { body($0) } }
        buffer.removeAll(keepingCapacity: true)
        discarding = false
    }

    private mutating func finishLine(
        _ chunk: UnsafeRawBufferPointer, from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        if discarding {
            discarding = false
            buffer.removeAll(keepingCapacity: true)
            return
        }
        if buffer.isEmpty {
            guard end > start else { return }
            if end - start > maximumLineLength {
                overlongLines += 1
                return
            }
            body(UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
            return
        }
        hold(chunk, from: start, to: end)
        if discarding {
            discarding = false
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.withUnsafeBytes { body($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func hold(_ chunk: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        guard !discarding else { return }
        if buffer.count + (end - start) > maximumLineLength {
            overlongLines += 1
            discarding = true
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
    }
}

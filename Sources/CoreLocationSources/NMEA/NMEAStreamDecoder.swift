import Foundation

/// Bytes in, epoch events out: line splitter, parser and epoch assembler in one value. This is what
/// every NMEA input runs, and the embedded test double: write bytes in any chunking, read events out.
public struct NMEAStreamDecoder: Sendable {
    public private(set) var splitter: NMEALineSplitter
    public private(set) var parser = NMEAParser()
    public private(set) var assembler: NMEAEpochAssembler
    /// Overlong lines of splitters replaced by `resetLine()`.
    private var earlierOverlong = 0

    public init(
        referenceDate: Date? = NMEAEpochAssembler.releaseReferenceDate, marksFixesSimulated: Bool = false,
        maximumLineLength: Int = NMEALineSplitter.defaultMaximumLineLength
    ) {
        splitter = NMEALineSplitter(maximumLineLength: maximumLineLength)
        assembler = NMEAEpochAssembler(referenceDate: referenceDate, marksFixesSimulated: marksFixesSimulated)
    }

    /// Counters, including lines the splitter dropped for their length.
    public var statistics: NMEAStatistics {
        var statistics = parser.statistics
        statistics[.overlong] += splitter.overlongLines + earlierOverlong
        return statistics
    }

    /// The receiver status with the stream's counters.
    public var status: NMEAReceiverStatus {
        var status = assembler.status
        status.statistics = statistics
        return status
    }

    /// Feeds a chunk. `emit` gets each completed epoch and the UTC time of day it was measured at; `relay`, when
    /// given, each line that is a sentence with a valid checksum (decoded or ignored), without its line end, before
    /// the sentence is assembled: what gpsd relays to a client that watches with `nmea` (decision 0090).
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer, receivedAt: Date, relay: ((UnsafeRawBufferPointer) -> Void)? = nil,
        _ emit: (NMEAEpochEvent, Double?) -> Void
    ) {
        // Moved out (swapped with a placeholder, not copied) so the closure can mutate them without a copy-on-write
        // of the assembler's storage or a retain of each of its fields: the placeholder holds only empty collections.
        var parser = NMEAParser()
        swap(&parser, &self.parser)
        var assembler = NMEAEpochAssembler(referenceDate: nil)
        swap(&assembler, &self.assembler)
        splitter.feed(bytes) { line in
            let validBefore = relay == nil ? 0 : parser.statistics.decoded &+ parser.statistics.ignored
            let sentence = parser.parse(line)
            if let relay, parser.statistics.decoded &+ parser.statistics.ignored != validBefore {
                var end = line.count
                while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
                relay(UnsafeRawBufferPointer(rebasing: line[..<end]))
            }
            guard let sentence else { return }
            for event in assembler.handle(sentence, receivedAt: receivedAt) {
                emit(event, assembler.lastClosedEpochTime)
            }
        }
        swap(&parser, &self.parser)
        swap(&assembler, &self.assembler)
    }

    public mutating func feed(_ bytes: [UInt8], receivedAt: Date, _ emit: (NMEAEpochEvent, Double?) -> Void) {
        bytes.withUnsafeBytes { feed($0, receivedAt: receivedAt, emit) }
    }

    /// Ends the stream: the last unterminated line and the epoch in progress.
    public mutating func finish(receivedAt: Date, _ emit: (NMEAEpochEvent, Double?) -> Void) {
        var parser = self.parser
        var assembler = self.assembler
        self.assembler = NMEAEpochAssembler(referenceDate: nil)
        splitter.finish { line in
            guard let sentence = parser.parse(line) else { return }
            for event in assembler.handle(sentence, receivedAt: receivedAt) {
                emit(event, assembler.lastClosedEpochTime)
            }
        }
        if let event = assembler.finish(receivedAt: receivedAt) { emit(event, assembler.lastClosedEpochTime) }
        self.parser = parser
        self.assembler = assembler
    }

    /// Starts over after a reconnection: a partial line is dropped, the learnt cycle and date kept.
    public mutating func resetLine() {
        earlierOverlong += splitter.overlongLines
        splitter = NMEALineSplitter(maximumLineLength: splitter.maximumLineLength)
    }
}

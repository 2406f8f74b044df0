import Foundation
import CoreLocationEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A recorded log being replayed: where its bytes come from, how far the decoder got, and the next
/// event. A file is read in `chunkSize` pieces as the replay needs them, never whole, so memory does
/// not depend on the log's length.
struct NMEAReplay: Sendable {
    /// Bytes read from a file per step.
    static let chunkSize = 65_536

    private let input: NMEAReplayInput
    private var decoder: NMEAStreamDecoder
    private var pending: [(event: SourceEvent, time: Double?)] = []
    private var pendingStart = 0
    private var ended = false
    /// UTC time of day of the last event handed out.
    private(set) var lastTime: Double?

    /// Replays bytes already in memory (tests).
    init(bytes: [UInt8]) {
        self.init(input: NMEAReplayInput(bytes: bytes))
    }

    /// Replays the file at `path`, read as the replay goes.
    /// - Throws: `FileProblem` when the path is not a readable file.
    init(path: String) throws(FileProblem) {
        self.init(input: try NMEAReplayInput(path: path))
    }

    private init(input: NMEAReplayInput) {
        self.input = input
        // An old recording is old: no week roll-over correction; software replays it: simulated.
        self.decoder = NMEAStreamDecoder(referenceDate: nil, marksFixesSimulated: true)
    }

    var status: NMEAReceiverStatus { decoder.status }

    /// True when the log ended without one well-formed NMEA sentence (an empty, binary or text file).
    var foundNoSentence: Bool {
        let statistics = decoder.statistics
        return ended && pendingStart >= pending.count && statistics.decoded + statistics.ignored == 0
    }

    /// The next event without consuming it; nil at the end of the log.
    mutating func peek(receivedAt: Date) -> (event: SourceEvent, time: Double?)? {
        while pendingStart >= pending.count && !ended {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            let more = input.read { bytes in
                decoder.feed(bytes, receivedAt: receivedAt) { pending.append((NMEAStreamSource.sourceEvent($0), $1)) }
            }
            if !more {
                decoder.finish(receivedAt: receivedAt) { pending.append((NMEAStreamSource.sourceEvent($0), $1)) }
                ended = true
                input.close()
            }
        }
        return pendingStart < pending.count ? pending[pendingStart] : nil
    }

    mutating func next(receivedAt: Date) -> SourceEvent? {
        guard let first = peek(receivedAt: receivedAt) else { return nil }
        pendingStart += 1
        if let time = first.time { lastTime = time }
        return first.event
    }

    /// The events a replay step at `deadline` hands out, and the time of the next step (nil at the end
    /// of the log): as fast as possible, up to `NMEAStreamSource.fastReplayBatch` events at once with the
    /// next step at the same instant; at a recorded pace, one event, the next after the recorded gap
    /// divided by the speed.
    mutating func take(
        pace: NMEAInput.ReplayPace, deadline: Double, receivedAt: Date
    ) -> (events: [SourceEvent], next: Double?) {
        var events: [SourceEvent] = []
        switch pace {
        case .asFastAsPossible:
            while events.count < NMEAStreamSource.fastReplayBatch, let event = next(receivedAt: receivedAt) {
                events.append(event)
            }
            return (events, peek(receivedAt: receivedAt) == nil ? nil : deadline)
        case .recorded(let speed):
            if let event = next(receivedAt: receivedAt) { events.append(event) }
            guard peek(receivedAt: receivedAt) != nil else { return (events, nil) }
            return (events, deadline + gapToNext(receivedAt: receivedAt) / (speed > 0 ? speed : 1))
        }
    }

    /// Seconds from the last event handed out to the next one, by their UTC times of day (a step
    /// back of more than 12 h is a midnight crossing); 0 when either time is unknown.
    mutating func gapToNext(receivedAt: Date) -> Double {
        guard let last = lastTime, let next = peek(receivedAt: receivedAt)?.time else { return 0 }
        var gap = next - last
        if gap < -43_200 { gap += 86_400 }
        return max(0, gap)
    }
}

/// Where a replay's bytes come from: memory, or a file descriptor read a chunk at a time.
///
/// `@unchecked Sendable`: a replay lives in its source's state and is used only with that state's
/// lock held, so one thread at a time reads, and `close` is idempotent under the same lock.
final class NMEAReplayInput: @unchecked Sendable {  // safe: used only under its source's state lock
    private var bytes: [UInt8]
    private var offset = 0
    private var descriptor: Int32?
    private var buffer: [UInt8] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    init(path: String) throws(FileProblem) {
        if let problem = FileProblem.check(path) { throw problem }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileProblem.fromErrno(errno, path: path) }
        bytes = []
        descriptor = fd
        buffer = [UInt8](repeating: 0, count: NMEAReplay.chunkSize)
    }

    deinit { close() }

    /// Hands the next chunk to `body`; false at the end (or on a read error, which ends the log).
    func read(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard let fd = descriptor else {
            guard offset < bytes.count else { return false }
            let end = min(bytes.count, offset + 4_096)
            bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
            offset = end
            return true
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            return true
        }
    }

    func close() {
        if let fd = descriptor {
            _ = Glibc.close(fd)
            descriptor = nil
        }
        bytes = []
    }
}

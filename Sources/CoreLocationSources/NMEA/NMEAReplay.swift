import Foundation
import CoreLocationEngine

/// A recorded log being replayed: its bytes, how far the decoder got, and the next event.
struct NMEAReplay: Sendable {
    private let bytes: [UInt8]
    private var offset = 0
    private var decoder: NMEAStreamDecoder
    private var pending: [(event: SourceEvent, time: Double?)] = []
    private var ended = false
    /// UTC time of day of the last event handed out.
    private(set) var lastTime: Double?

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // An old recording is old: no week roll-over correction; software replays it: simulated.
        self.decoder = NMEAStreamDecoder(referenceDate: nil, marksFixesSimulated: true)
    }

    var status: NMEAReceiverStatus { decoder.status }

    /// The next event without consuming it; nil at the end of the log.
    mutating func peek(receivedAt: Date) -> (event: SourceEvent, time: Double?)? {
        let chunk = 4_096
        while pending.isEmpty && !ended {
            if offset >= bytes.count {
                decoder.finish(receivedAt: receivedAt) { pending.append((NMEAStreamSource.sourceEvent($0), $1)) }
                ended = true
                break
            }
            let end = min(bytes.count, offset + chunk)
            bytes.withUnsafeBytes { all in
                let slice = UnsafeRawBufferPointer(rebasing: all[offset..<end])
                decoder.feed(slice, receivedAt: receivedAt) { pending.append((NMEAStreamSource.sourceEvent($0), $1)) }
            }
            offset = end
        }
        return pending.first
    }

    mutating func next(receivedAt: Date) -> SourceEvent? {
        guard let first = peek(receivedAt: receivedAt) else { return nil }
        pending.removeFirst()
        if let time = first.time { lastTime = time }
        return first.event
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

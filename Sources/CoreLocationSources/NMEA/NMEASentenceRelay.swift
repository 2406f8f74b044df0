import Synchronization

/// A source that can hand out the sentences its receiver sends, as they arrive: what gpsd relays to a client that
/// watches with `nmea` (decision 0090). Only live inputs relay; a file replay relays nothing.
public protocol SentenceRelaying: LocationSource {
    /// Whether it relays at all: a live receiver does, a replay does not.
    var relaysSentences: Bool { get }
    /// Starts handing `listener` the valid sentences read from now on, on the source's reader thread: one call per
    /// read, each sentence a line ending in `\r\n`. The token ends it (`removeSentenceListener`).
    func addSentenceListener(_ listener: @escaping @Sendable (String) -> Void) -> UInt64
    func removeSentenceListener(_ token: UInt64)
}

/// The listeners of one source. The reader asks `isEmpty` at each read, which costs one atomic load, so a receiver
/// nobody asked sentences of pays nothing more per read.
final class SentenceListeners: Sendable {
    private let listeners = Mutex<[UInt64: @Sendable (String) -> Void]>([:])
    private let count = Atomic<Int>(0)
    private let nextToken = Atomic<UInt64>(0)

    var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    func add(_ listener: @escaping @Sendable (String) -> Void) -> UInt64 {
        let token = nextToken.add(1, ordering: .relaxed).newValue
        listeners.withLock {
            $0[token] = listener
            count.store($0.count, ordering: .releasing)
        }
        return token
    }

    func remove(_ token: UInt64) {
        listeners.withLock {
            $0[token] = nil
            count.store($0.count, ordering: .releasing)
        }
    }

    /// Hands `lines` to every listener, outside the lock (a listener may remove itself).
    func send(_ lines: String) {
        for listener in listeners.withLock({ Array($0.values) }) { listener(lines) }
    }
}

extension NMEAStreamSource: SentenceRelaying {
    public var relaysSentences: Bool { endpoint != nil }

    public func addSentenceListener(_ listener: @escaping @Sendable (String) -> Void) -> UInt64 {
        sentenceListeners.add(listener)
    }

    public func removeSentenceListener(_ token: UInt64) {
        sentenceListeners.remove(token)
    }
}

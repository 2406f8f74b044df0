import Synchronization

/// Bytes every connection holds of frames not yet complete (issue 37, item 7): bounded for the whole daemon,
/// so that many connections each sending most of a frame cannot make it hold their memory. A connection's
/// share is given back as its frames complete and when it goes.
final class PartialFrames: Sendable {
    /// The daemon's total, bytes.
    let limit: Int
    private let total = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Moves one connection's holding from `old` to `new` bytes; false (and nothing changed) when growing it
    /// would pass the daemon's limit.
    func hold(from old: Int, to new: Int) -> Bool {
        total.withLock { total in
            if new > old, total + new - old > limit { return false }
            total += new - old
            return true
        }
    }

    var held: Int { total.withLock { $0 } }

    /// Why a connection was refused by `FrameSplitter` (turned into a fatal error frame by `ConnectionHandler`).
    enum Refusal: Error, Equatable {
        /// The daemon holds `limit` bytes of incomplete frames already.
        case overBudget(limit: Int)
        /// A frame begun was not completed within `seconds`.
        case timedOut(seconds: Double)
    }
}

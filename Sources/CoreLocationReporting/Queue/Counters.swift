import Synchronization

/// Thinning counters shared by a queue's callers.
final class Counters: Sendable {
    private let state = Mutex((thinned: 0, beyond: 0))

    func add(beyond: Bool) {
        state.withLock {
            $0.thinned += 1
            if beyond { $0.beyond += 1 }
        }
    }

    var values: (Int, Int) { state.withLock { ($0.thinned, $0.beyond) } }
}

import Synchronization

/// Open connections per uid (issue 37, item 6): each costs the daemon descriptors (the socket and its
/// `DirectSocket` duplicate) and memory, so one user may hold only so many; another user is never refused
/// for them. A connection counts from the moment its peer is identified to its channel going inactive.
final class ConnectionCounter: Sendable {
    let limit: Int
    private let counts = Mutex<[UInt32: Int]>([:])

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection of `uid`; false (and not counted) when that uid already holds `limit`.
    func admit(uid: UInt32) -> Bool {
        counts.withLock { counts in
            let held = counts[uid, default: 0]
            guard held < limit else { return false }
            counts[uid] = held + 1
            return true
        }
    }

    /// A connection `admit` counted has closed.
    func release(uid: UInt32) {
        counts.withLock { counts in
            let held = counts[uid, default: 0] - 1
            counts[uid] = held > 0 ? held : nil
        }
    }

    func held(by uid: UInt32) -> Int { counts.withLock { $0[uid, default: 0] } }
}

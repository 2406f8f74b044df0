import Synchronization

/// Admits at most `limit` requests in any sliding window of `window` seconds; refuses the rest at once.
///
/// Time is read from the injected `now` (seconds on a monotonic clock), so tests step it exactly.
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: Double
    private let now: @Sendable () -> Double
    private let admitted = Mutex<[Double]>([])

    public init(limit: Int, window: Double, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.limit = max(0, limit)
        self.window = max(0, window)
        self.now = now
    }

    /// Records a request and returns true if the window has room for it; returns false otherwise.
    public func admit() -> Bool {
        let time = now()
        return admitted.withLock { times in
            times.removeAll { $0 <= time - window }
            guard times.count < limit else { return false }
            times.append(time)
            return true
        }
    }

    /// Seconds since an arbitrary fixed point, from `ContinuousClock`.
    public static let monotonicSeconds: @Sendable () -> Double = {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
    private static let origin = ContinuousClock.now
}

/// Exponential backoff with jitter, seeded so a failure replays.
///
/// After the n-th failure in a row (n ≥ 1) the wait is drawn uniformly from [d/2, d] with
/// d = min(`maximum`, `initial` × 2^(n−1)) ("equal jitter": never less than half the step, so a
/// crowd of clients spreads out without hammering). A server's `Retry-After` is a floor. A success
/// resets the count.
public struct Backoff: Sendable, Hashable {
    public var initial: Double
    public var maximum: Double
    public private(set) var failures = 0
    private var state: UInt64

    public init(initial: Double = 1, maximum: Double = 300, seed: UInt64 = 0x5EED) {
        self.initial = initial
        self.maximum = maximum
        self.state = seed
    }

    /// The wait before the next attempt, seconds.
    public mutating func next(retryAfter: Double? = nil) -> Double {
        failures += 1
        let step = min(maximum, initial * Double(1 << min(failures - 1, 30)))
        let wait = step / 2 + step / 2 * random()
        return max(wait, retryAfter ?? 0)
    }

    public mutating func reset() { failures = 0 }

    /// SplitMix64 → [0, 1).
    private mutating func random() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}

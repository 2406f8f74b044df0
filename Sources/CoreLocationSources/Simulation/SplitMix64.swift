import Foundation

/// A small, fast, seeded pseudo-random generator (Steele, Lea & Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014; the constants of Vigna's `splitmix64.c`).
///
/// Same seed, same sequence, on every platform: simulated noise replays exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Standard normal (mean 0, variance 1), by the Box–Muller transform.
    public mutating func nextGaussian() -> Double {
        let u1 = 1 - nextUnit()  // (0, 1]: log is finite
        let u2 = nextUnit()
        return (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * .pi * u2)
    }
}

/// How long to wait before reconnecting to gpsd after the `failures`-th failed or lost connection.
///
/// Doubling from `initial` up to `cap`: 0.125 s, 0.25 s, 0.5 s, 1 s, 1 s, … by default. The cap is
/// short on purpose: a connect attempt to a gpsd that is down costs one refused SYN, and a 1 s cap
/// plus a loopback connect keeps the promise that updates resume within 2 s of gpsd's return.
public struct GPSDBackoff: Sendable, Equatable {
    /// Seconds before the first retry.
    public var initial: Double
    /// The longest wait, seconds.
    public var cap: Double

    public init(initial: Double = 0.125, cap: Double = 1) {
        self.initial = initial
        self.cap = cap
    }

    /// The wait after `failures` consecutive failures (1 = the first), seconds.
    public func delay(afterFailures failures: Int) -> Double {
        let exponent = min(max(failures - 1, 0), 30)
        return min(cap, initial * Double(1 << exponent))
    }
}

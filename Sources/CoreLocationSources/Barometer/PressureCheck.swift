/// Rejects readings no working barometer gives: not a number, zero or negative, outside the chip's
/// range, or the same value `stuckAfter` times in a row (a frozen driver or a dead sensor: real
/// sensors' noise — a few hundredths of a hectopascal — changes the last digits of every sample).
public struct PressureCheck: Sendable, Hashable {
    public let range: ClosedRange<Double>
    /// Identical consecutive readings that mean "stuck" (at 2 Hz, 30 = 15 s).
    public let stuckAfter: Int
    private var last: Double?
    private var repeats = 0

    public init(range: ClosedRange<Double>, stuckAfter: Int = 30) {
        self.range = range
        self.stuckAfter = max(2, stuckAfter)
    }

    /// Nil when `hectopascals` is a plausible reading; else why it is not.
    public mutating func problem(with hectopascals: Double) -> String? {
        guard hectopascals.isFinite else { return "the pressure is not a number (\(hectopascals))" }
        guard hectopascals > 0 else { return "the pressure reads \(hectopascals) hPa (zero or negative)" }
        guard range.contains(hectopascals) else {
            return "the pressure \(format(hectopascals)) hPa is outside the sensor's range "
                + "\(format(range.lowerBound))…\(format(range.upperBound)) hPa"
        }
        if hectopascals == last {
            repeats += 1
        } else {
            last = hectopascals
            repeats = 1
        }
        if repeats >= stuckAfter {
            return "the pressure is stuck at \(format(hectopascals)) hPa (\(repeats) identical readings)"
        }
        return nil
    }

    private func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return "\(rounded)"
    }
}

import Foundation

/// Distance from received power: the log-distance path-loss model
///
///     RSSI(d) = P₁ − 10 · n · log₁₀(d / 1 m)   ⇒   d = 10^((P₁ − RSSI) / (10 · n))
///
/// with P₁ the frame's measured power at 1 m (dBm) and n the path-loss exponent (2 in free space; 2 is the
/// default: indoor line-of-sight measurements fall between 1.6 and 2.2, Rappaport, *Wireless Communications*, 2nd
/// ed., table 4.2). Shadowing of σ dB makes a single reading's distance wrong by a factor 10^(σ/(10 n)) at one
/// sigma; averaging a cycle's k readings shrinks σ by √k (docs/decisions/0030).
public struct PathLossModel: Sendable, Hashable {
    public var exponent: Double

    public init(exponent: Double = 2.0) {
        self.exponent = exponent
    }

    /// Metres for a mean RSSI (dBm) and a measured power at 1 m (dBm); nil for non-finite input or a 0 reading.
    public func distance(rssi: Double, measuredPower: Int) -> Double? {
        guard rssi.isFinite, rssi < 0, exponent > 0 else { return nil }
        let metres = pow(10, (Double(measuredPower) - rssi) / (10 * exponent))
        return metres.isFinite ? metres : nil
    }

    /// Apple's proximity classes by distance: immediate below 0.5 m, near below 3 m, far beyond
    /// (docs/decisions/0030).
    public static func proximity(distance: Double?) -> BeaconProximity {
        guard let distance, distance.isFinite, distance >= 0 else { return .unknown }
        if distance < 0.5 { return .immediate }
        if distance < 3 { return .near }
        return .far
    }
}

/// `CLProximity`'s cases with Apple's raw values.
public enum BeaconProximity: Int, Sendable, Hashable, Codable, CaseIterable {
    case unknown = 0, immediate = 1, near = 2, far = 3

    /// Apple's order in a ranging result: immediate, near, far, then unknown.
    var sortRank: Int { self == .unknown ? 4 : rawValue }
}

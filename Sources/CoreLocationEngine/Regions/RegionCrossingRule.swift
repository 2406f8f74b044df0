import Foundation

/// How region monitoring turns a determined region's fixes into a crossing (decision 0019).
public enum RegionCrossingRule: String, Hashable, Codable, Sendable {
    /// Evidence accumulation (the default since decision 0019). Each fix gives a signed margin
    /// `m`, metres, by which its uncertainty disc lies beyond the far edge of the hysteresis band:
    /// for a region believed inside, `m = d − a − (r + h)`; believed outside, `m = (r − h) − d − a`
    /// (`d` distance to the centre, `a` horizontal accuracy, `r` radius, `h` hysteresis). The
    /// region's evidence `E = max(0, E + Δt · clamp(m, −c·h, c·h))`, with `Δt` the seconds since the
    /// region's previous fix, at most `regionEvidenceGap`; the crossing is reported when
    /// `E ≥ regionEvidenceSeconds · c·h` and the evidence has been positive for `regionDwell`
    /// seconds. Within `regionRecentCrossingWindow` of a crossing the opposite one needs
    /// `regionRecentCrossingFactor` times the evidence. So a fix far beyond the band counts fully,
    /// one barely beyond it a little, fixes on the believed side take evidence back, and a gap
    /// adds nothing.
    case evidence
    /// The rule of decision 0007: a fix supports a side when its disc is beyond the band
    /// (`m ≥ 0`); the crossing comes at the first supporting fix `regionDwell` seconds after the
    /// first one, unless a fix supported the old side in between. Kept for comparison
    /// (`Benchmarks/regions/noisy`) and for callers that want it.
    case dwell
}

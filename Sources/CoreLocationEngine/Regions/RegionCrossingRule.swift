import Foundation

/// How region monitoring turns a determined region's fixes into a crossing (decisions 0019, 0062).
public enum RegionCrossingRule: String, Hashable, Codable, Sendable {
    /// The default since decision 0062: the user is *clearly* on the other side — a fix's whole
    /// uncertainty disc at least the hysteresis `h` beyond the boundary — for `regionDwell` (20 s)
    /// of the fixes' own time, as iOS documents. The time runs from halfway between the first clear
    /// fix and the fix before it (at most `regionEvidenceGap / 2` earlier) to the newest clear fix; a
    /// fix clearly on the old side cancels it, a fix that cannot tell (its disc straddles the band)
    /// neither adds nor cancels, and clear fixes more than `regionRunGap` apart start it again (a
    /// stray fix before an indoor gap and one after it prove nothing). Jumps (`JumpScreen`) are no
    /// evidence.
    case sustained
    /// Evidence accumulation (the default from decision 0019 to 0062). Each fix gives a signed margin
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

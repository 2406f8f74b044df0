import Foundation
import CoreLocationGeodesy

/// |a - b| for angles in degrees, so that 180 and -180 (or 0 and 360) compare equal.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    abs(remainder(a - b, 360))
}

/// A tiny seeded generator (SplitMix64), so every random case replays.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let wgs84 = Geodesic.wgs84

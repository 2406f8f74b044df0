import CoreLocationEngine
import CoreLocationReporting
import Foundation

/// Metres along the equator → degrees of longitude on WGS84 (the geodesic along the equator is the
/// arc of radius a = 6 378 137 m), so distances in the recipe's table are exact by hand.
func equatorLongitude(_ metres: Double) -> Double { metres / 6_378_137 * 180 / .pi }

let epoch = Date(timeIntervalSince1970: 1_700_000_000)

func fix(
    x: Double, y: Double = 0, t: Double, speed: Double = -1, accuracy: Double = 5, origin: (Double, Double) = (0, 0)
) -> Fix {
    // Local east/north metres → degrees on the mean sphere at the origin (what SED measures).
    let r = SynchronizedDistance.earthRadius
    let latitude = origin.0 + y / r * 180 / .pi
    let longitude = origin.1 + x / (r * cos(origin.0 * .pi / 180)) * 180 / .pi
    return Fix(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, speed: speed,
               timestamp: epoch.addingTimeInterval(t))
}

/// Every decision of a bounded policy fed `fixes`, the end of input's included, with the time between
/// fixes passed as `locationctl report` passes it (`tick(at:)` before each fix).
func run(_ fixes: [Fix], _ parameters: BoundedPolicy.Parameters) -> [ReportDecision] {
    var policy = BoundedPolicy(parameters: parameters)
    var out: [ReportDecision] = []
    for f in fixes {
        out += policy.tick(at: f.timestamp)
        out += policy.handle(f)
    }
    return out + policy.finish()
}

/// A bounded policy's decisions on `fixes` with the freshness bound `freshness` (nil: off), and among them
/// the arrivals and the departures.
func settles(_ fixes: [Fix], freshness: Double?) -> (all: [ReportDecision], arrivals: [ReportDecision], departures: [ReportDecision]) {
    var parameters = BoundedPolicy.Parameters()
    parameters.freshness = freshness
    let decisions = run(fixes, parameters)
    return (decisions, decisions.filter { $0.kind == .arrival }, decisions.filter { $0.kind == .departure })
}

/// A seeded noisy walk/drive: (x, y) metres with headings that change, speeds, and stops.
struct SeededTrack {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// `segments` legs of 30–300 s at 1–20 m/s, heading turning, 1 s fixes with ±`noise` m jitter,
    /// and a `stop` seconds standing still after every third leg.
    mutating func fixes(segments: Int, noise: Double, stop: Double = 0, origin: (Double, Double) = (48.85, 2.35))
        -> [Fix]
    {
        var out: [Fix] = []
        var x = 0.0, y = 0.0, t = 0.0, heading = 0.0
        for leg in 0..<segments {
            let speed = 1 + 19 * uniform()
            let duration = 30 + 270 * uniform()
            let turn = (uniform() - 0.5) * 0.05
            for _ in 0..<Int(duration) {
                heading += turn
                x += speed * cos(heading)
                y += speed * sin(heading)
                t += 1
                out.append(fix(x: x + noise * (uniform() - 0.5), y: y + noise * (uniform() - 0.5), t: t,
                               origin: origin))
            }
            if stop > 0, leg % 3 == 2 {
                for _ in 0..<Int(stop) {
                    t += 1
                    out.append(fix(x: x + noise * (uniform() - 0.5), y: y + noise * (uniform() - 0.5), t: t,
                                   origin: origin))
                }
            }
            heading += (uniform() - 0.5) * 2
        }
        return out
    }
}

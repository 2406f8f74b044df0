import CoreLocationEngine
import Foundation

// GNSS altitude alone against the barometric fusion (decision 0032) and the floor counter (0033), on
// seeded synthetic profiles, side by side in one run. Usage: AltitudeBench [SEEDS]   (default 10)
let seeds = UInt64(CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 10)
let stops: [(Int, Double)] = [
    (0, 300), (1, 120), (3, 200), (2, 90), (5, 300), (4, 60), (0, 200), (6, 400), (1, 300), (0, 200),
]
let walk: [(Int, Double)] = [
    (0, 300), (1, 120), (3, 200), (2, 90), (5, 300), (4, 60), (0, 200), (6, 400), (1, 300), (-1, 200), (2, 600), (0, 100),
]

func median(_ values: [Double]) -> Double { AltitudeEvaluation.percentile(values, 0.5) }

print("profile                 GNSS σ  seeds  GNSS p95 (m)  fused p95 (m)  ratio (median, worst)  outage drift 60 s (median, worst)")
for (name, sigma) in [("hill", 5.0), ("hill", 7.0), ("hill", 10.0), ("staircase", 5.0), ("staircase", 7.0), ("staircase", 10.0)] {
    var gnss: [Double] = []
    var fused: [Double] = []
    var ratios: [Double] = []
    var drifts: [Double] = []
    for seed in 1...seeds {
        var scenario = name == "hill" ? AltitudeScenario.hill(seed: seed) : AltitudeScenario.staircase(seed: seed, stops: stops)
        scenario.gnssSigma = sigma
        scenario.outages = [1000...1060]
        let result = AltitudeEvaluation.run(scenario)
        gnss.append(result.gnssP95)
        fused.append(result.fusedP95)
        ratios.append(result.fusedP95 / result.gnssP95)
        drifts.append(result.outageDrifts[0])
    }
    print(
        name.padding(toLength: 24, withPad: " ", startingAt: 0)
            + String(
                format: "%5.0f  %5d  %12.2f  %13.2f  %8.2f, %5.2f          %8.2f, %5.2f", sigma, seeds, median(gnss),
                median(fused), median(ratios), ratios.max() ?? .nan, median(drifts), drifts.max() ?? .nan))
}

var floorAccuracies: [Double] = []
for seed in 1...seeds {
    var scenario = AltitudeScenario.staircase(seed: seed, stops: walk)
    scenario.outages = [300...scenario.duration + 1]
    let result = AltitudeEvaluation.run(scenario, venue: FloorVenue(groundFloorAltitude: 100, floorHeight: 3.5))
    floorAccuracies.append(result.floorAccuracy)
}
print(
    String(
        format: "building walk (55 min, GNSS first 5 min only, -1 hPa/h): floor right %.1f %% median, %.1f %% worst, %d seeds",
        100 * median(floorAccuracies), 100 * (floorAccuracies.min() ?? .nan), seeds))

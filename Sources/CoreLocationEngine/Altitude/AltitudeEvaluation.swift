import Foundation

/// Runs `AltitudeFusion` over an `AltitudeScenario` and scores it (tests and `Benchmarks/altitude`).
public struct AltitudeEvaluation: Sendable {
    /// Per GNSS epoch after `warmUp`: |GNSS − truth| and |fused − truth|.
    public var gnssErrors: [Double] = []
    public var fusedErrors: [Double] = []
    /// Fraction of scored epochs whose |fused − truth| ≤ the reported verticalAccuracy (1 σ → ≈ 68 %).
    public var withinAccuracy: Double = 0
    /// Per outage: the largest |error(t) − error(start)| inside it, and the accuracy reported at its end.
    public var outageDrifts: [Double] = []
    public var outageEndAccuracies: [Double] = []
    /// Floors: samples with a venue after the tracker anchored, and how many had the right level.
    public var floorSamples = 0
    public var floorRight = 0

    public var gnssP95: Double { Self.percentile(gnssErrors, 0.95) }
    public var fusedP95: Double { Self.percentile(fusedErrors, 0.95) }
    public var floorAccuracy: Double { floorSamples == 0 ? 0 : Double(floorRight) / Double(floorSamples) }

    /// - Parameters:
    ///   - warmUp: seconds not scored (the offset's first calibration).
    ///   - venue: scores floors against the true altitude's nearest storey when given.
    public static func run(
        _ scenario: AltitudeScenario, warmUp: Double = 120, venue: FloorVenue? = nil,
        parameters: AltitudeFilter.Parameters = AltitudeFilter.Parameters()
    ) -> AltitudeEvaluation {
        var fusion = AltitudeFusion(parameters: parameters, venue: venue)
        var result = AltitudeEvaluation()
        var within = 0
        var outageStart: [Int: Double] = [:]
        var drifts = [Double](repeating: 0, count: scenario.outages.count)
        var endAccuracy = [Double](repeating: -1, count: scenario.outages.count)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for sample in scenario.samples() {
            let t = sample.time
            fusion.observe(
                PressureSample(hectopascals: sample.pressure, timestamp: start + t, device: "synthetic"), at: t)
            if let gnss = sample.gnssAltitude {
                let fix = Fix(
                    latitude: 47, longitude: 8, altitude: gnss, ellipsoidalAltitude: gnss + 48,
                    horizontalAccuracy: 5, verticalAccuracy: scenario.gnssSigma, timestamp: start + t)
                let fused = fusion.fuse(fix, at: t)
                if t >= warmUp {
                    result.gnssErrors.append(abs(gnss - sample.trueAltitude))
                    result.fusedErrors.append(abs(fused.altitude - sample.trueAltitude))
                    if abs(fused.altitude - sample.trueAltitude) <= fused.verticalAccuracy { within += 1 }
                }
            }
            if let estimate = fusion.filter.estimate(at: t) {
                let error = estimate.altitude - sample.trueAltitude
                for (index, outage) in scenario.outages.enumerated() where outage.contains(t) {
                    let first = outageStart[index] ?? error
                    outageStart[index] = first
                    drifts[index] = max(drifts[index], abs(error - first))
                    endAccuracy[index] = estimate.accuracy
                }
            }
            if let venue, let tracker = fusion.floors, let level = tracker.level {
                let truth = Int(((sample.trueAltitude - venue.groundFloorAltitude) / venue.floorHeight).rounded())
                result.floorSamples += 1
                if level == truth { result.floorRight += 1 }
            }
        }
        result.withinAccuracy = result.fusedErrors.isEmpty ? 0 : Double(within) / Double(result.fusedErrors.count)
        result.outageDrifts = drifts
        result.outageEndAccuracies = endAccuracy
        return result
    }

    public static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
}

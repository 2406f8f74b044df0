import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

@Suite("Noise model")
struct NoiseModelTests {
    /// Published first outputs of splitmix64 for seed 0 (Vigna's reference `splitmix64.c`).
    @Test("SplitMix64 reference sequence")
    func splitMix() {
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    struct Run {
        var errors: [(north: Double, east: Double, distance: Double, reported: Double)] = []
        var dropoutStarts = 0
        var dropped = 0
    }

    /// 10⁴ fixes of a fixed place, one per second, through the default model with seed 2024.
    static func run(seed: UInt64 = 2024, count: Int = 10_000) -> Run {
        var generator = NoiseGenerator(model: NoiseModel(seed: seed))
        let truth = Fix(latitude: 45, longitude: 7, horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: 0))
        var run = Run()
        for second in 0..<count {
            switch generator.apply(to: truth, at: Double(second)) {
            case .fix(let fix):
                let inverse = Geodesic.wgs84.inverse(
                    latitude1: truth.latitude, longitude1: truth.longitude,
                    latitude2: fix.latitude, longitude2: fix.longitude
                )
                let azimuth = inverse.azimuth1 * .pi / 180
                run.errors.append(
                    (inverse.distance * cos(azimuth), inverse.distance * sin(azimuth), inverse.distance,
                        fix.horizontalAccuracy)
                )
            case .dropout(let started):
                run.dropped += 1
                if started { run.dropoutStarts += 1 }
            }
        }
        return run
    }

    @Test("about 68 % of ordinary errors lie within the stated accuracy; outliers report more")
    func statistics() {
        let run = Self.run()
        #expect(run.errors.count + run.dropped == 10_000)
        let ordinary = run.errors.filter { $0.reported == 5 }
        let within = Double(ordinary.filter { $0.distance <= 5 }.count) / Double(ordinary.count)
        #expect((0.6...0.75).contains(within), "fraction within 5 m: \(within)")
        let outliers = run.errors.filter { $0.reported != 5 }
        #expect((40...160).contains(outliers.count), "outliers: \(outliers.count)")  // 1 % of ~9 700
        #expect(outliers.allSatisfy { $0.reported == 30 })
        let outlierMean = outliers.map(\.distance).reduce(0, +) / Double(max(1, outliers.count))
        #expect(outlierMean > 15, "mean outlier error \(outlierMean) m")
        // Poisson, 1 per 600 s: about 16 in 10⁴ s.
        #expect((5...35).contains(run.dropoutStarts), "dropouts: \(run.dropoutStarts)")
        #expect(run.dropped >= run.dropoutStarts * 10)
    }

    /// φ = exp(−1 s / 20 s) ≈ 0.951 between consecutive seconds; nearly independent 200 s apart.
    @Test("errors are correlated over tens of seconds, not longer")
    func correlation() {
        let north = Self.run().errors.filter { $0.reported == 5 }.map(\.north)
        func correlation(lag: Int) -> Double {
            let a = north.dropLast(lag), b = north.dropFirst(lag)
            let meanA = a.reduce(0, +) / Double(a.count), meanB = b.reduce(0, +) / Double(b.count)
            let covariance = zip(a, b).map { ($0 - meanA) * ($1 - meanB) }.reduce(0, +)
            let varianceA = a.map { ($0 - meanA) * ($0 - meanA) }.reduce(0, +)
            let varianceB = b.map { ($0 - meanB) * ($0 - meanB) }.reduce(0, +)
            return covariance / (varianceA * varianceB).squareRoot()
        }
        #expect(correlation(lag: 1) > 0.85)
        #expect(abs(correlation(lag: 200)) < 0.3)
    }

    @Test("same seed, same noise; another seed, other noise")
    func seeded() {
        let a = Self.run(count: 300).errors.map(\.distance)
        #expect(a == Self.run(count: 300).errors.map(\.distance))
        #expect(a != Self.run(seed: 7, count: 300).errors.map(\.distance))
    }

    @Test("a source with noise reports .unavailable and goes quiet during a dropout")
    func sourceDropout() throws {
        let scheduler = ManualScheduler()
        let source = try SimulatedLocationSource(
            scenario: .fixed(latitude: 10, longitude: 20),
            noise: NoiseModel(seed: 5, dropoutRate: 1.0 / 60, dropoutDuration: 10...10),
            scheduler: scheduler
        )
        let recorder = EventRecorder()
        source.start(recorder.handler)
        scheduler.advance(by: 600)
        source.stop()
        let events = recorder.events
        let unavailable = events.indices.filter {
            if case .unavailable = events[$0] { return true }
            return false
        }
        #expect(!unavailable.isEmpty)
        #expect(recorder.fixes.allSatisfy { $0.isSimulated && $0.speed == 0 })
        // After each .unavailable, the next fix comes at least 10 s after the last one before it.
        for index in unavailable where index > 0 {
            let isFix: (SourceEvent) -> Bool = { if case .fix = $0 { true } else { false } }
            guard case .fix(let before) = events[index - 1],
                case .fix(let after)? = events[(index + 1)...].first(where: isFix)
            else { continue }
            #expect(after.timestamp.timeIntervalSince(before.timestamp) >= 10)
        }
    }
}

import Foundation
import Synchronization
import Testing

@testable import CoreLocationEngine

/// Region crossings on the urban phone tracks of `Benchmarks/noise` (issue 35): seeded synthetic tracks
/// built from the noise measured on real recordings (indoor stays wandering 20–150 m, 1–5 s sampling,
/// gaps, jumps of hundreds of metres, fast drives) and the real tracks with logger noise of
/// `Benchmarks/regions/noisy`, split into a tuning half and a reporting half by
/// `Benchmarks/noise/split.txt`. 200 m regions on every stay, 150 m regions on legs passed through.
///
/// Reference crossings come from the noise-free track (clearly inside ≤ r − 20 m, outside ≥ r + 20 m);
/// a flip-flop is an exit and an entry less than 5 min apart; on time is within 3 min.
@Suite struct UrbanTrackRegionTests {
    typealias Score = NoisyTrackRegionTests.Score
    typealias RegionSpec = NoisyTrackRegionTests.RegionSpec
    typealias Row = NoisyTrackRegionTests.Row

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Benchmarks").standardized

    /// track → half, from the split file.
    static func split() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("noise/split.txt"), encoding: .utf8)
        var halves: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count == 2 { halves[String(words[1])] = String(words[0]) }
        }
        return halves
    }

    static func rows(_ url: URL) throws -> [Row] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line -> Row? in
            let v = line.split(separator: ",").prefix(6).compactMap { Double($0) }
            guard v.count == 6 else { return nil }
            return Row(t: v[0], latitude: v[1], longitude: v[2], accuracy: v[3], truthLatitude: v[4], truthLongitude: v[5])
        }
    }

    /// Every (track, file, regions) of one half.
    static func cases(half: String) throws -> [(track: String, rows: [Row], regions: [RegionSpec])] {
        let halves = try split()
        var result: [(String, [Row], [RegionSpec])] = []
        let urban = root.appendingPathComponent("noise/tracks")
        let urbanRegions = try JSONDecoder().decode(
            [String: [RegionSpec]].self, from: Data(contentsOf: urban.appendingPathComponent("regions.json")))
        for (track, specs) in urbanRegions.sorted(by: { $0.key < $1.key }) where halves[track] == half {
            result.append((track, try rows(urban.appendingPathComponent(track + ".csv")), specs))
        }
        let noisyRegions = try NoisyTrackRegionTests.regions()
        for file in NoisyTrackRegionTests.files {
            let cut = file.range(of: "-s", options: .backwards)?.lowerBound ?? file.endIndex
            let track = String(file[..<cut])
            guard halves[track] == half else { continue }
            let url = NoisyTrackRegionTests.directory.appendingPathComponent(file)
            result.append((String(file.dropLast(4)), try rows(url), noisyRegions[track] ?? []))
        }
        return result
    }

    /// The reference crossings (`NoisyTrackRegionTests.reference`), keeping on a traverse region (`-pass`) only
    /// passes clearly inside for 30 s or more: a shorter one is reported by neither iOS's rule nor ours.
    static func reference(_ rows: [Row], _ spec: RegionSpec) -> [(Double, Bool)] {
        let all = NoisyTrackRegionTests.reference(rows, spec)
        guard spec.id.contains("-pass") else { return all }
        var kept: [(Double, Bool)] = []
        var i = 0
        while i < all.count {
            if all[i].1, i + 1 < all.count, all[i + 1].0 - all[i].0 < 30 {
                i += 2
                continue
            }
            kept.append(all[i])
            i += 1
        }
        return kept
    }

    /// Flip-flops counted on stay regions only (the issue's measure), and not for a pair of reported crossings
    /// that both match reference crossings (a real pass back through a stay's region).
    static func flipFlops(_ events: [(Double, Bool)], _ reference: [(Double, Bool)]) -> Int {
        var used = Set<Int>()
        for (i, (t, entered)) in reference.enumerated() {
            let previous = i > 0 ? reference[i - 1].0 : -.infinity
            if let j = events.indices.first(where: {
                !used.contains($0) && events[$0].1 == entered && events[$0].0 > previous && events[$0].0 <= t + 180
            }) {
                used.insert(j)
            }
        }
        return events.indices.dropFirst().filter {
            events[$0].0 - events[$0 - 1].0 < 300 && !(used.contains($0) && used.contains($0 - 1))
        }.count
    }

    static func measure(half: String, rule: RegionCrossingRule, accuracy: Double?) throws -> Score {
        var total = Score()
        for item in try cases(half: half) {
            let events = NoisyTrackRegionTests.crossings(item.rows, item.regions, rule: rule, accuracy: accuracy)
            for spec in item.regions {
                let reference = Self.reference(item.rows, spec)
                var score = NoisyTrackRegionTests.score(events[spec.id] ?? [], reference)
                score.flipFlops = spec.id.contains("-pass") ? 0 : Self.flipFlops(events[spec.id] ?? [], reference)
                total = total + score
            }
        }
        return total
    }

    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
    }

    /// The tuning half: the figures rules were changed for. Both accuracy readings: as the phone states
    /// it, and 5 m on every fix (a GPX replay).
    @Test(arguments: [nil, 5.0])
    func tuningHalf(accuracy: Double?) throws {
        let score = try Self.measure(half: "tuning", rule: .sustained, accuracy: accuracy)
        // Benchmarks/regions/noisy/README.md, with synth-17…48 in this half (issue 35's second session: the
        // first 8 synthetic tracks showed too few of a stay's flip-flops) and the stay's spread and recross
        // margin of its third (decision 0062): 279 and 281 of 288 on time, plus 122 and 123 of 128 traverses;
        // 2 and 3 flip-flops (were 6 and 16; the issue's 0 is not met, the assertion guards against worse).
        #expect(score.reference == 416)
        #expect(score.flipFlops <= (accuracy == nil ? 2 : 3), "\(score)")
        #expect(score.timely >= (accuracy == nil ? 401 : 404), "\(score)")
        #expect(Self.quantile(score.delays, 0.9) <= 40, "\(score.delays.sorted())")
        try Self.report(score, half: "tuning", rule: .sustained, accuracy: accuracy)
        try Self.report(
            try Self.measure(half: "tuning", rule: .evidence, accuracy: accuracy), half: "tuning", rule: .evidence,
            accuracy: accuracy)
    }

    /// The reporting half: measured with the rule as tuned, never tuned on. Its assertions only guard
    /// against regressions of what `Benchmarks/regions/noisy/README.md` reports.
    @Test(arguments: [nil, 5.0])
    func reportingHalf(accuracy: Double?) throws {
        let score = try Self.measure(half: "reporting", rule: .sustained, accuracy: accuracy)
        // Benchmarks/regions/noisy/README.md: 101 and 102 of 103 on time; 4 and 7 flip-flops (7 and 20 before
        // decision 0062's third session; the issue's 0 is not met on this half; the assertion guards against
        // worse).
        #expect(score.reference == 103)
        #expect(score.flipFlops <= (accuracy == nil ? 4 : 7), "\(score)")
        #expect(score.timely >= 101, "\(score)")
        #expect(Self.quantile(score.delays, 0.9) <= 40, "\(score.delays.sorted())")
        try Self.report(score, half: "reporting", rule: .sustained, accuracy: accuracy)
        try Self.report(
            try Self.measure(half: "reporting", rule: .evidence, accuracy: accuracy), half: "reporting",
            rule: .evidence, accuracy: accuracy)
    }

    static let lock = Mutex(())

    /// `Benchmarks/regions/noisy/run.sh` sets CORELOCATION_URBAN_REPORT to collect the figures.
    static func report(_ score: Score, half: String, rule: RegionCrossingRule, accuracy: Double?) throws {
        guard let path = ProcessInfo.processInfo.environment["CORELOCATION_URBAN_REPORT"], !path.isEmpty else {
            return
        }
        let delays = score.delays.map { $0 }
        let enterExit = "\(Int(quantile(delays, 0.5))) / \(Int(quantile(delays, 0.9))) / \(Int(delays.max() ?? .nan))"
        let line = "| \(half) | \(rule.rawValue) | \(accuracy.map { "\(Int($0)) m" } ?? "as stated") | "
            + "\(score.reference) | \(score.timely) | \(score.reference - score.timely) | \(score.flipFlops) | "
            + "\(score.crossings) | \(score.unmatched) | \(enterExit) |\n"
        try lock.withLock { _ in
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                try handle.close()
            } else {
                try Data(line.utf8).write(to: URL(fileURLWithPath: path))
            }
        }
    }
}

// Reverse-geocoding benchmark: load time, resident memory, per-query latency (p50/p99) and batch
// throughput over seeded points, plus each point's answer for the accuracy comparison.
// Usage: GeocodingBench GAZETTEER POINTS.bin OUT.tsv [REPETITIONS] [LABEL]
// Loads the gazetteer REPETITIONS times (the first load is the cold one: first in this process; the rest
// are warm), as bench_reverse_geocoder.py does with the same count.
import Foundation
import CoreLocationGeocoding

func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func readPoints(_ path: String) -> [(Double, Double)] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    let values = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
    return stride(from: 0, to: values.count - 1, by: 2).map { (values[$0], values[$0 + 1]) }
}

/// This thread's CPU time (s): what a query costs, without the time other processes on a loaded machine
/// take from it (the wall-clock figures include that; both sides report both).
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: GeocodingBench GAZETTEER POINTS.bin OUT.tsv [REPS]\n".utf8))
    exit(64)
}
let gazetteerURL = URL(fileURLWithPath: arguments[1])
let points = readPoints(arguments[2])
let repetitions = max(2, arguments.count > 4 ? Int(arguments[4]) ?? 5 : 5)
let label = arguments.count > 5 ? arguments[5] : "swift"
let clock = ContinuousClock()

let rssBefore = residentKiB()
var loadTimes: [Double] = []
var gazetteer: Gazetteer?
for _ in 0..<repetitions {
    gazetteer = nil
    let start = clock.now
    gazetteer = try? Gazetteer.load(from: gazetteerURL)
    loadTimes.append(seconds(clock.now - start))
}
guard let gazetteer else {
    FileHandle.standardError.write(Data("cannot load \(gazetteerURL.path)\n".utf8))
    exit(1)
}
let rssAfter = residentKiB()
let coldLoad = loadTimes[0]
var warmLoads = Array(loadTimes.dropFirst())
warmLoads.sort()

// GEOCODING_BENCH_PROFILE=K: only the batch, K times (for `perf record`: the profile then shows the batch alone).
if let profile = ProcessInfo.processInfo.environment["GEOCODING_BENCH_PROFILE"].flatMap({ Int($0) }) {
    let coordinates = points.map { (latitude: $0.0, longitude: $0.1) }
    var answered = 0
    let cpuStart = threadCPUSeconds()
    for _ in 0..<profile { answered += ((try? gazetteer.reverse(coordinates)) ?? []).count }
    print(label, String(format: "profile batch_cpu_per_query_us %.3f answered %d",
                        (threadCPUSeconds() - cpuStart) / Double(max(1, profile * points.count)) * 1e6, answered))
    exit(0)
}

// Single queries: each one timed on its own.
var latencies: [Double] = []
latencies.reserveCapacity(points.count)
var answers: [GeocodedPlace?] = []
answers.reserveCapacity(points.count)
for (lat, lon) in points {
    let start = clock.now
    let place = try? gazetteer.reverse(latitude: lat, longitude: lon)
    latencies.append(seconds(clock.now - start))
    answers.append(place)
}
let mean = latencies.reduce(0, +) / Double(latencies.count) * 1e6
var land = zip(latencies, answers).filter { $0.1 != nil }.map(\.0)
land.sort()
latencies.sort()
let p50 = latencies[latencies.count / 2] * 1e6
let p99 = latencies[latencies.count * 99 / 100] * 1e6
let landP50 = land.isEmpty ? 0 : land[land.count / 2] * 1e6
let landP99 = land.isEmpty ? 0 : land[land.count * 99 / 100] * 1e6

// Batch: the whole list in one call of the batch entry point (`Gazetteer.reverse(_:)`: it visits the points in
// Z-order of their cells and answers in input order; the sort, the answers and their release are timed, as
// reverse_geocoder's one vectorised `query` builds and drops its list of dicts), repeated; median throughput.
// Then the same list as a loop of single calls (the batch figure before the batch entry point), for comparison.
let coordinates = points.map { (latitude: $0.0, longitude: $0.1) }
var batchTimes: [Double] = []
var batchCPUTimes: [Double] = []
var loopCPUTimes: [Double] = []
var checksum = 0
for _ in 0..<repetitions {
    let start = clock.now
    let cpuStart = threadCPUSeconds()
    do {
        let batch = (try? gazetteer.reverse(coordinates)) ?? []
        checksum &+= batch.count + (batch.last??.locality?.utf8.count ?? 0)
    }
    batchCPUTimes.append(threadCPUSeconds() - cpuStart)
    batchTimes.append(seconds(clock.now - start))
    let loopStart = threadCPUSeconds()
    for (lat, lon) in points {
        if let place = try? gazetteer.reverse(latitude: lat, longitude: lon) {
            checksum &+= place.locality?.utf8.count ?? 1
        }
    }
    loopCPUTimes.append(threadCPUSeconds() - loopStart)
}
// The batch must answer exactly what the single calls answered, in the same order (checked untimed).
let checkBatch = (try? gazetteer.reverse(coordinates)) ?? []
let batchMismatches = checkBatch.count == answers.count ? zip(checkBatch, answers).filter { $0.0 != $0.1 }.count : -1
guard batchMismatches == 0 else {
    FileHandle.standardError.write(Data("the batch answers differ from the single answers (\(batchMismatches))\n".utf8))
    exit(1)
}
batchTimes.sort()
batchCPUTimes.sort()
loopCPUTimes.sort()
let batchMedian = batchTimes[batchTimes.count / 2]
let batchCPUMedian = batchCPUTimes[batchCPUTimes.count / 2]
let loopCPUMedian = loopCPUTimes[loopCPUTimes.count / 2]

// Forward: the first query builds the name index; then the localities found above, as queries.
let names = Array(answers.compactMap { $0?.locality }.prefix(10_000))
let indexStart = clock.now
_ = try? gazetteer.forward(ForwardQuery(text: "Paris"))
let indexSeconds = seconds(clock.now - indexStart)
var forwardLatencies: [Double] = []
var found = 0
for name in names {
    let start = clock.now
    let results = (try? gazetteer.forward(ForwardQuery(text: name))) ?? []
    forwardLatencies.append(seconds(clock.now - start))
    found += results.isEmpty ? 0 : 1
}
forwardLatencies.sort()

var out = "lat\tlon\tcountry\ttimezone\tlocality\n"
for ((lat, lon), place) in zip(points, answers) {
    out += "\(lat)\t\(lon)\t\(place?.isoCountryCode ?? "")\t\(place?.timeZone ?? "")\t\(place?.locality ?? "")\n"
}
try? out.write(toFile: arguments[3], atomically: true, encoding: .utf8)
// Every field of every answer, to check that a change to the look-up keeps the answers identical.
if let dump = ProcessInfo.processInfo.environment["GEOCODING_BENCH_DUMP"] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var lines = Data()
    for place in answers {
        lines.append((try? place.map { try encoder.encode($0) }) ?? Data("null".utf8))
        lines.append(0x0A)
    }
    guard FileManager.default.createFile(atPath: dump, contents: lines) else {
        FileHandle.standardError.write(Data("cannot write \(dump)\n".utf8))
        exit(1)
    }
}

print(label, String(format: "loads %d load_ms_cold %.1f load_ms_warm_median %.1f rss_growth_mib %.1f",
             loadTimes.count, coldLoad * 1000, warmLoads[warmLoads.count / 2] * 1000,
             Double(rssAfter - rssBefore) / 1024))
print(label, String(format: "points %d single_p50_us %.2f single_p99_us %.2f single_mean_us %.2f",
                    points.count, p50, p99, mean))
print(label, String(format: "answered_p50_us %.2f answered_p99_us %.2f answered %d",
                    landP50, landP99, land.count))
if !forwardLatencies.isEmpty {
    print(label, String(format: "forward_index_build_ms %.0f forward_p50_us %.1f forward_p99_us %.1f found %d/%d",
                 indexSeconds * 1000, forwardLatencies[forwardLatencies.count / 2] * 1e6,
                 forwardLatencies[forwardLatencies.count * 99 / 100] * 1e6, found, names.count))
}
print(label, String(format: "batch_per_query_us %.3f batch_cpu_per_query_us %.3f batch_queries_per_s %.0f (checksum %d)",
             batchMedian / Double(points.count) * 1e6, batchCPUMedian / Double(points.count) * 1e6,
             Double(points.count) / batchMedian, checksum))
print(label, String(format: "loop_cpu_per_query_us %.3f", loopCPUMedian / Double(points.count) * 1e6))

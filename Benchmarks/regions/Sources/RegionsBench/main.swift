import Foundation
import CoreLocationGeodesy

// Usage: RegionsBench DIR N [BRUTE_QUERIES] [SET]
// Builds a CircleIndex over circles-N.bin, then per point of SET-N.bin (SET: points, the headline
// set, by default; track, the random-walk fixes) times one query
// (`circles(containingLatitude:longitude:into:)`, exact geodesic answer) individually and reports
// the median and mean; times all points in one loop (bulk, median of 3, ns per point: what GEOS's
// bulk STRtree query is compared with); checks EVERY answer against a scan of the circles sorted by
// latitude (no index; geodesic for each circle within 1 km); times a full brute-force scan (every
// circle) on the first BRUTE_QUERIES points; reports bytes per circle as resident growth while
// building (the headline) and from the index's capacities.

func readDoubles(_ path: String) -> [Double] {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
        exit(1)
    }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
}

func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    return (Int(text.split(separator: " ")[1]) ?? 0) * 4
}

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// This thread's CPU time (ns): the bulk pass's cost without the time other processes take on a loaded
/// machine. strtree.py reports the same (`time.thread_time_ns()`) for GEOS's bulk query.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let n = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: RegionsBench DIR N [BRUTE_QUERIES]\n".utf8))
    exit(64)
}
let directory = arguments[1]
let bruteQueries = arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000
let pointSet = arguments.count > 4 ? arguments[4] : "points"
let circles = readDoubles("\(directory)/circles-\(n).bin")
let points = readDoubles("\(directory)/\(pointSet)-\(n).bin")

let before = residentKiB()
var index = CircleIndex()
index.reserveCapacity(n)
for i in 0..<n {
    _ = index.insert(latitude: circles[3 * i], longitude: circles[3 * i + 1], radius: circles[3 * i + 2])
}
index.compact()
let after = residentKiB()

var result: [CircleIndex.Handle] = []
result.reserveCapacity(16)
var times: [UInt64] = []
let queries = points.count / 2
times.reserveCapacity(queries)
var hits = 0
for q in 0..<queries {
    result.removeAll(keepingCapacity: true)
    let start = nanoseconds()
    index.circles(containingLatitude: points[2 * q], longitude: points[2 * q + 1], into: &result)
    times.append(nanoseconds() - start)
    hits += result.count
}
times.sort()
let median = times[times.count / 2]
let mean = Double(times.reduce(0, +)) / Double(times.count)

func mismatchExit(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

// Bulk: every point in one loop, as a batch query would; median of 3 passes.
var bulkTimes: [Double] = []
var bulkCPUTimes: [Double] = []
for _ in 0..<3 {
    var bulkHits = 0
    let start = nanoseconds()
    let cpuStart = threadCPUNanoseconds()
    for q in 0..<queries {
        result.removeAll(keepingCapacity: true)
        index.circles(containingLatitude: points[2 * q], longitude: points[2 * q + 1], into: &result)
        bulkHits += result.count
    }
    bulkCPUTimes.append(Double(threadCPUNanoseconds() - cpuStart) / Double(max(1, queries)))
    bulkTimes.append(Double(nanoseconds() - start) / Double(max(1, queries)))
    if bulkHits != hits { mismatchExit("bulk pass found \(bulkHits) hits, single queries \(hits)") }
}
bulkTimes.sort()
bulkCPUTimes.sort()

// Every answer against a scan without the index: circles sorted by latitude; for each point, every
// circle whose centre is within the latitude band any circle reaching the point must be in, decided by
// the geodesic when its flat-earth distance is within 1 km (radii here are at most 300 m).
let byLatitude = (0..<n).sorted { circles[3 * $0] < circles[3 * $1] }
let sortedLatitudes = byLatitude.map { circles[3 * $0] }
let maxRadius = stride(from: 2, to: circles.count, by: 3).map { circles[$0] }.max() ?? 0
let band = (maxRadius + 100) / 110_000  // degrees: more than any circle's latitude reach
var checked = 0
var wrong = 0
for q in 0..<queries {
    let lat = points[2 * q]
    let lon = points[2 * q + 1]
    let cosLat = cos(lat * Double.pi / 180)
    var low = 0, high = sortedLatitudes.count
    while low < high {
        let mid = (low + high) / 2
        if sortedLatitudes[mid] < lat - band { low = mid + 1 } else { high = mid }
    }
    var found: [CircleIndex.Handle] = []
    var k = low
    while k < sortedLatitudes.count, sortedLatitudes[k] <= lat + band {
        let i = byLatitude[k]
        k += 1
        let dy = (circles[3 * i] - lat) * 111_132
        let dx = (circles[3 * i + 1] - lon) * 111_320 * cosLat
        if dx * dx + dy * dy > 1_000_000 { continue }
        let d = Geodesic.wgs84.inverse(
            latitude1: circles[3 * i], longitude1: circles[3 * i + 1], latitude2: lat, longitude2: lon)
        if d.distance <= circles[3 * i + 2] { found.append(CircleIndex.Handle(i)) }
    }
    result.removeAll(keepingCapacity: true)
    index.circles(containingLatitude: lat, longitude: lon, into: &result)
    if Set(result) != Set(found) { wrong += 1 }
    checked += 1
}

// Brute force on the first queries: every circle, flat-earth prefilter with a geodesic decision near
// the boundary is what a careful scan does; we use the geodesic for every circle within 1 km.
var bruteTimes: [UInt64] = []
var mismatches = 0
for q in 0..<min(bruteQueries, queries) {
    let lat = points[2 * q]
    let lon = points[2 * q + 1]
    let start = nanoseconds()
    var found: [CircleIndex.Handle] = []
    let cosLat = cos(lat * Double.pi / 180)
    for i in 0..<n {
        let dy = (circles[3 * i] - lat) * 111_132
        let dx = (circles[3 * i + 1] - lon) * 111_320 * cosLat
        if dx * dx + dy * dy > 1_000_000 { continue }
        let d = Geodesic.wgs84.inverse(
            latitude1: circles[3 * i], longitude1: circles[3 * i + 1], latitude2: lat, longitude2: lon)
        if d.distance <= circles[3 * i + 2] { found.append(CircleIndex.Handle(i)) }
    }
    bruteTimes.append(nanoseconds() - start)
    result.removeAll(keepingCapacity: true)
    index.circles(containingLatitude: lat, longitude: lon, into: &result)
    if Set(result) != Set(found) { mismatches += 1 }
}
bruteTimes.sort()
print(
    "swift-circleindex n=\(n) set=\(pointSet) queries=\(queries) median_ns=\(median) mean_ns=\(Int(mean)) "
        + "bytes_per_circle_capacity=\(index.estimatedBytes / n) bytes_per_circle_rss=\((after - before) * 1024 / n) "
        + "hits=\(hits) brute_median_ns=\(bruteTimes.isEmpty ? 0 : bruteTimes[bruteTimes.count / 2]) "
        + "brute_timed=\(bruteTimes.count) brute_mismatches=\(mismatches) "
        + "bulk_ns_per_point=\(Int(bulkTimes[1])) bulk_cpu_ns_per_point=\(Int(bulkCPUTimes[1])) checked_all=\(checked) mismatches_all=\(wrong)"
)

// Times Geodesic.wgs84.inverse on the pairs in a binary file (little-endian float64 quadruples
// lat1 lon1 lat2 lon2) and writes the distances (float64) for comparison with GeographicLib.
// Usage: GeodesicBench PAIRS.bin DISTANCES.bin REPETITIONS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CoreLocationGeodesy

func readDoubles(_ path: String) -> [Double]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let bytes = ftell(f)
    fseek(f, 0, SEEK_SET)
    var values = [Double](repeating: 0, count: bytes / 8)
    let read = values.withUnsafeMutableBytes { fread($0.baseAddress, 8, bytes / 8, f) }
    return read == bytes / 8 ? values : nil
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

let args = CommandLine.arguments
guard args.count == 4, let reps = Int(args[3]), reps > 0, let pairs = readDoubles(args[1]) else {
    print("usage: GeodesicBench PAIRS.bin DISTANCES.bin REPETITIONS")
    exit(2)
}
let count = pairs.count / 4
var distances = [Double](repeating: 0, count: count)
var times: [Double] = []
var checksum = 0.0
let g = Geodesic.wgs84
for _ in 0..<reps {
    let t0 = now()
    pairs.withUnsafeBufferPointer { p in
        distances.withUnsafeMutableBufferPointer { out in
            for i in 0..<count {
                let r = g.inverse(latitude1: p[4 * i], longitude1: p[4 * i + 1], latitude2: p[4 * i + 2],
                                  longitude2: p[4 * i + 3])
                out[i] = r.distance
                checksum += r.azimuth1 + r.azimuth2
            }
        }
    }
    times.append((now() - t0) / Double(count) * 1e9)
}
times.sort()
if let f = fopen(args[2], "wb") {
    _ = distances.withUnsafeBytes { fwrite($0.baseAddress, 8, count, f) }
    fclose(f)
}
let all = times.map { "\(($0 * 10).rounded() / 10)" }.joined(separator: " ")
print("swift ns_per_call_median \((times[times.count / 2] * 10).rounded() / 10) all [\(all)] checksum \(checksum)")

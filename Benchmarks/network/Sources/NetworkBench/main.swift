import Foundation
import NetworkIP

// Usage: NetworkBench DB.mmdb ADDRESSES.txt REPETITIONS
// Prints one JSON object: database open time (median of 21 opens, ms), look-up p50/p99 (ns) over every address
// × repetitions, and how many addresses were found (the C peer must find the same).
let arguments = CommandLine.arguments
guard arguments.count == 4, let repetitions = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: NetworkBench DB.mmdb ADDRESSES.txt REPETITIONS\n".utf8))
    exit(2)
}
let text = try String(contentsOfFile: arguments[2], encoding: .utf8)
let addresses = text.split(separator: "\n").compactMap { IPAddress(String($0)) }

func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

var opens: [Double] = []
for _ in 0..<21 {
    let start = nanoseconds()
    _ = try MaxMindDatabase(path: arguments[1])
    opens.append(Double(nanoseconds() - start) / 1e6)
}
let database = try MaxMindDatabase(path: arguments[1])
var samples: [UInt64] = []
samples.reserveCapacity(addresses.count * repetitions)
var found = 0
var checksum = 0.0
var detail = 0
for repetition in 0..<repetitions {
    for address in addresses {
        let start = nanoseconds()
        let location = try? database.lookup(address)
        let elapsed = nanoseconds() - start
        samples.append(elapsed)
        if repetition == 0, let location {
            found += 1
            checksum += location.latitude + location.longitude
            let radius = location.accuracyFromDatabase ? Int(location.horizontalAccuracy / 1000) : 0
            detail += radius + (location.city?.utf8.count ?? 0) + (location.countryCode?.utf8.count ?? 0)
        }
    }
}
samples.sort()
opens.sort()
func percentile(_ sorted: [UInt64], _ p: Double) -> UInt64 { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(
    """
    {"impl": "swift", "open_ms": \(opens[opens.count / 2]), "p50_ns": \(percentile(samples, 0.5)), "p99_ns": \(percentile(samples, 0.99)), \
    "lookups": \(samples.count), "found": \(found), "checksum": \(String(format: "%.6f", checksum)), \
    "detail": \(detail)}
    """)

// beacon-range RECORDING SECONDS: ranges a recorded-advertisement file (docs/beacons.md) in real time with the
// library's BeaconRangingSession, as `locationctl beacons --simulate RECORDING --format json` does, without the
// rest of locationctl (Benchmarks/beacons/bench.py --standin). One JSON line a ranging cycle on stdout:
// {"t":…,"beacons":[{"minor":…,"accuracy":…,"rssi":…},…]}.
import CoreLocationBeacons
import CoreLocationSources
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, let seconds = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: beacon-range RECORDING SECONDS\n".utf8))
    exit(64)
}
let scheduler = DispatchScheduler()
let scanner: ReplayBeaconScanner
do {
    scanner = try ReplayBeaconScanner(contentsOf: URL(fileURLWithPath: arguments[1]), scheduler: scheduler)
} catch {
    FileHandle.standardError.write(Data("beacon-range: \(arguments[1]): \(error)\n".utf8))
    exit(66)
}
let constraint = BeaconConstraint(uuid: nil, major: nil, minor: nil)
let session = BeaconRangingSession(scanner: scanner, scheduler: scheduler) { output in
    guard case .action(.ranged(_, let beacons)) = output else { return }
    let items = beacons.map { beacon in
        "{\"minor\":\(beacon.minor),\"accuracy\":" + String(format: "%.2f", beacon.accuracy) + ",\"rssi\":\(beacon.rssi)}"
    }
    let line = "{\"t\":" + String(format: "%.1f", scheduler.now) + ",\"beacons\":[" + items.joined(separator: ",") + "]}\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}
session.startRanging(constraint)
Thread.sleep(forTimeInterval: seconds + 0.1)
session.stopRanging(constraint)

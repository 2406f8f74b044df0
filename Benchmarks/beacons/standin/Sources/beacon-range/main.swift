// beacon-range RECORDING SECONDS [--loop]: ranges a recorded-advertisement file (docs/beacons.md) in real time
// with the library's BeaconRangingSession, as `locationctl beacons --simulate RECORDING --format json` does,
// without the rest of locationctl (Benchmarks/beacons/bench.py --standin). One JSON line a ranging cycle on
// stdout: {"t":…,"beacons":[{"minor":…,"accuracy":…,"rssi":…,"proximity":"near"},…]}. `--loop` plays the
// recording again and again (a short recording for a long run: the replay's memory stays that of the
// recording, so what grows is the ranger's).
// beacon-range RECORDING SECONDS --monitor: monitors one beacon region (any beacon of the recording) instead;
// a line `{"start":T}` when the replay starts, then `{"event":"entered|exited|inside|outside","t":T}` per action
// (T: the scheduler's clock, seconds).
import CoreLocationBeacons
import CoreLocationSources
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3, let seconds = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: beacon-range RECORDING SECONDS [--loop|--monitor|--fast]\n".utf8))
    exit(64)
}
let mode = arguments.count > 3 ? arguments[3] : ""
let virtualClock = mode == "--fast" ? ReplayScheduler(speed: .infinity, wallOrigin: Date(timeIntervalSince1970: 0)) : nil
let scheduler: any Scheduler = virtualClock ?? DispatchScheduler()
// --fast: signalled by the cycle that ends at or after SECONDS on the recording's timeline.
let finished = DispatchSemaphore(value: 0)
let scanner: ReplayBeaconScanner
do {
    scanner = try ReplayBeaconScanner(
        contentsOf: URL(fileURLWithPath: arguments[1]), scheduler: scheduler, loops: mode == "--loop")
} catch {
    FileHandle.standardError.write(Data("beacon-range: \(arguments[1]): \(error)\n".utf8))
    exit(66)
}
@Sendable func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let constraint = BeaconConstraint(uuid: nil, major: nil, minor: nil)
let session = BeaconRangingSession(scanner: scanner, scheduler: scheduler) { output in
    switch output {
    case .action(.ranged(_, let beacons)):
        let now = scheduler.now
        if virtualClock != nil, now > seconds + 0.5 { return }
        let items = beacons.map { beacon in
            "{\"minor\":\(beacon.minor),\"accuracy\":" + String(format: "%.3f", beacon.accuracy)
                + ",\"rssi\":\(beacon.rssi),\"proximity\":\"\(beacon.proximity)\"}"
        }
        emit("{\"t\":" + String(format: "%.1f", now) + ",\"beacons\":[" + items.joined(separator: ",") + "]}")
        if virtualClock != nil, now >= seconds { finished.signal() }
    case .action(.entered):
        emit("{\"event\":\"entered\",\"t\":" + String(format: "%.3f", scheduler.now) + "}")
    case .action(.exited):
        emit("{\"event\":\"exited\",\"t\":" + String(format: "%.3f", scheduler.now) + "}")
    case .action(.determined(_, let state)):
        emit("{\"event\":\"\(state == .inside ? "inside" : state == .outside ? "outside" : "unknown")\",\"t\":"
            + String(format: "%.3f", scheduler.now) + "}")
    default:
        break
    }
}
if mode == "--monitor" {
    emit("{\"start\":" + String(format: "%.3f", scheduler.now) + "}")
    session.startMonitoring(identifier: "bench", constraint: constraint)
    Thread.sleep(forTimeInterval: seconds + 0.1)
    session.stopMonitoring(identifier: "bench")
} else if let virtualClock {
    session.startRanging(constraint)
    finished.wait()
    session.stopRanging(constraint)
    virtualClock.shutdown()
} else {
    session.startRanging(constraint)
    Thread.sleep(forTimeInterval: seconds + 0.1)
    session.stopRanging(constraint)
}

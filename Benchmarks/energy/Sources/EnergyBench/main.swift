import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

// Usage: EnergyBench TRACK.csv STAYS.csv ACTIVITY|monitoring WARMUP
//   TRACK.csv: "seconds,latitude,longitude,unix_time" per recorded point (seconds from the first).
//   STAYS.csv: "arrival_seconds,departure_seconds,latitude,longitude" per hand-labelled stay.
//   ACTIVITY:  CLActivityType raw value (1 other, 2 automotive, 3 fitness, 4 other navigation), or
//              "monitoring": an app that monitors visits and significant changes only, replayed with
//              quiet monitoring off, then on (the default).
//   WARMUP:    seconds a receiver needs from power-up to its first fix.
// Replays the track through the shipped engine twice — an app with startUpdatingLocation(), Best
// accuracy, and pausesLocationUpdatesAutomatically off, then on — with a receiver that delivers a
// recorded fix only while powered and warmed up. Prints one markdown row: GNSS-on time of each run,
// the saving, pauses, and how each labelled stay looked to the app with pausing against without.
// With TRACE set in the environment it also prints each pause and resume, and each stay's times.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

func readRows(_ path: String) -> [[Double]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    return text.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !fields.isEmpty, fields.allSatisfy({ $0 != nil }) else { return nil }
        return fields.compactMap { $0 }
    }
}

let arguments = CommandLine.arguments
let monitoring = arguments.count == 5 && arguments[3] == "monitoring"
guard arguments.count == 5, let activity = monitoring ? 0 : Int(arguments[3]), let warmUp = Double(arguments[4]) else {
    fail("usage: EnergyBench TRACK.csv STAYS.csv ACTIVITY|monitoring WARMUP")
}
let track: [(time: Double, fix: Fix)] = readRows(arguments[1]).compactMap { row in
    guard row.count >= 4 else { return nil }
    // A phone-grade receiver's accuracy in the open; the recordings carry none.
    return (
        row[0],
        Fix(
            latitude: row[1], longitude: row[2], horizontalAccuracy: 5,
            timestamp: Date(timeIntervalSince1970: row[3]))
    )
}
let stays = readRows(arguments[2]).filter { $0.count >= 4 }
guard let end = track.last?.time else { fail("empty track") }

let receiver = SourceDescriptor(
    id: SourceID("gnss"), kind: "gnss", expectedAccuracy: 5, powerCost: 100, isSimulated: false)
let app = ClientID(1)

struct Run {
    var onTime: Double
    var pauses: Int
    /// (engine time, fix) of every location the app received.
    var received: [(time: Double, fix: Fix)]
    /// (on, off) engine times of the receiver.
    var powered: [(on: Double, off: Double)]
    /// Completed visits (monitoring mode).
    var visits: [Visit] = []

    /// Seconds powered within [start, end].
    func onTime(from start: Double, to end: Double) -> Double {
        powered.reduce(0) { $0 + max(0, min($1.off, end) - max($1.on, start)) }
    }
}

/// `saving` on: automatic pausing (updates) or quiet monitoring (monitoring); off: neither.
func run(saving: Bool) -> Run {
    var configuration = LocationEngine.Configuration()
    if !saving { configuration.monitoringProbeInterval = 0 }
    var driver = EngineDriver(engine: LocationEngine(sources: [receiver], configuration: configuration))
    driver.send(.client(app, .register(label: "app", authorization: ClientAuthorization(level: .whenInUse))))
    if monitoring {
        driver.send(.client(app, .startVisits))
        driver.send(.client(app, .startSignificantChanges))
    } else {
        driver.send(
            .client(
                app,
                .startUpdates(
                    UpdateRequest(
                        desiredAccuracy: -1, distanceFilter: -1, activityType: activity, pausesAutomatically: saving)
                )))
    }
    let outcome = driver.replay(track, through: receiver.id, warmUp: warmUp, until: end)
    var received: [(Double, Fix)] = []
    var pauses = 0
    var visits: [Visit] = []
    var powered: [(Double, Double)] = []
    var poweredSince: Double?
    for (time, action) in driver.actions {
        switch action {
        case .deliver(app, let delivery): received += delivery.fixes.map { (time, $0) }
        case .paused(app):
            pauses += 1
            if ProcessInfo.processInfo.environment["TRACE"] != nil { print("paused at", time) }
        case .resumed(app):
            if ProcessInfo.processInfo.environment["TRACE"] != nil { print("resumed at", time) }
        case .visit(app, let visit) where visit.departure != nil: visits.append(visit)
        case .powerOn: poweredSince = time
        case .powerOff:
            if let since = poweredSince { powered.append((since, time)) }
            poweredSince = nil
        default: break
        }
    }
    if let since = poweredSince { powered.append((since, end)) }
    return Run(onTime: outcome.onTime, pauses: pauses, received: received, powered: powered, visits: visits)
}

func distance(_ fix: Fix, _ latitude: Double, _ longitude: Double) -> Double {
    Geodesic.wgs84.inverse(latitude1: fix.latitude, longitude1: fix.longitude, latitude2: latitude, longitude2: longitude)
        .distance
}

/// When the app first heard the user at the stay (within 100 m, from 2 min before the labelled
/// arrival), and first heard them gone (beyond 150 m, after the labelled departure).
func arrivalAndLeaving(_ run: Run, stay: [Double]) -> (arrival: Double?, leaving: Double?) {
    let arrival = run.received.first { $0.time >= stay[0] - 120 && distance($0.fix, stay[2], stay[3]) <= 100 }?.time
    let leaving = run.received.first { $0.time >= stay[1] && distance($0.fix, stay[2], stay[3]) > 150 }?.time
    return (arrival, leaving)
}

let continuous = run(saving: false)
let paused = run(saving: true)
var missed = 0
var arrivalDelays: [Double] = []
var leavingDelays: [Double] = []
for stay in stays {
    let a = arrivalAndLeaving(continuous, stay: stay)
    let b = arrivalAndLeaving(paused, stay: stay)
    if let reference = a.arrival {
        if let heard = b.arrival { arrivalDelays.append(heard - reference) } else { missed += 1 }
    }
    if let reference = a.leaving, let heard = b.leaving { leavingDelays.append(heard - reference) }
    if ProcessInfo.processInfo.environment["TRACE"] != nil { print("stay", stay, a, b) }
}
let saving = 100 * (1 - paused.onTime / max(continuous.onTime, 1))
let name = URL(fileURLWithPath: arguments[1]).deletingPathExtension().lastPathComponent
let stopOn = stays.reduce((0.0, 0.0)) {
    ($0.0 + continuous.onTime(from: $1[0], to: $1[1]), $0.1 + paused.onTime(from: $1[0], to: $1[1]))
}
let stopSaving = stopOn.0 > 0 ? String(format: "%.0f%%", 100 * (1 - stopOn.1 / stopOn.0)) : "–"
let stoppedShare = stays.reduce(0) { $0 + ($1[1] - $1[0]) } / max(end, 1)
func formatted(_ values: [Double]) -> String {
    guard let maximum = values.max() else { return "–" }
    let sorted = values.sorted()
    return String(format: "%.0f / %.0f", sorted[sorted.count / 2], maximum)
}
if monitoring, ProcessInfo.processInfo.environment["TRACE"] != nil {
    for visit in continuous.visits { print("without", visit.arrival as Any, visit.departure as Any) }
    for visit in paused.visits { print("with", visit.arrival as Any, visit.departure as Any) }
}
if monitoring {
    // Visits found with quiet monitoring against without, paired in order; the largest shifts.
    func shift(_ key: (Visit) -> Date?) -> String {
        guard continuous.visits.count == paused.visits.count, !paused.visits.isEmpty else { return "–" }
        let shifts = zip(continuous.visits, paused.visits).compactMap { a, b -> Double? in
            guard let x = key(a), let y = key(b) else { return nil }
            return y.timeIntervalSince(x)
        }
        guard let low = shifts.min(), let high = shifts.max() else { return "–" }
        return String(format: "%+.0f … %+.0f", low, high)
    }
    print(
        String(
            format: "| %@ | %.0f | %.0f | %.0f | **%.1f%%** | %@ | %d / %d | %@ | %@ |",
            name, warmUp, continuous.onTime, paused.onTime, saving, stopSaving, continuous.visits.count,
            paused.visits.count, shift(\.arrival), shift(\.departure)
        ))
    exit(0)
}
print(
    String(
        format: "| %@ | %@ | %.0f | %.0f%% | %.0f | %.0f | **%.1f%%** | %@ | %d | %d / %d | %@ | %@ |",
        name, arguments[3], warmUp,
        100 * stoppedShare, continuous.onTime, paused.onTime, saving, stopSaving, paused.pauses,
        stays.count - missed, stays.count,
        formatted(arrivalDelays), formatted(leavingDelays)
    ))

// CoreLocationAppProbe: a small long-running app for the locationd tests. It asks for when-in-use
// authorization and then, by its arguments, runs standard updates, one requestLocation, or region
// monitoring, printing one line per delegate call with the monotonic time (seconds since boot, the
// same clock in every process) so tests can order its events against other processes'.
//
//   CoreLocationAppProbe updates|request|regions|region LAT LON RADIUS ID  [--seconds N]
//   CoreLocationAppProbe updates --background [--indicator]   (allowsBackgroundLocationUpdates, and
//                        showsBackgroundLocationIndicator; logs `background T ALLOWED` after setting them)
//   CoreLocationAppProbe background LAT LON RADIUS ID --log FILE [--crash-on-relaunch] [--seconds N]
//                        [--significant] [--visits]
//   CoreLocationAppProbe beacon-region UUID ID --log FILE [--seconds N]
//                        (decision 0050: a beacon region, unless monitored already; logs `enter`/`exit` as
//                        `background` does, and `failed T ID CODE` when monitoring fails)
//   CoreLocationAppProbe beacon-state UUID ID [--seconds N]
//                        (requestState of the app's beacon region ID: `state T ID STATE`, or `failed T ID CODE`)
//   CoreLocationAppProbe session --log FILE [--service] [--invalidate] [--no-resume] [--seconds N]
//                        (decision 0048: logs `session T` once the session is made, `update T LAT LON
//                        FIXTIME` per liveUpdates location, `invalidated T`)
//   CoreLocationAppProbe monitor NAME LAT LON RADIUS ID --log FILE [--hold-once MARK] [--seconds N]
//                        (decision 0049: `CLMonitor`; logs `monitoring T ID found|added`, `condition T ID STATE`;
//                        `--hold-once`: the first process started by locationd creates the file MARK, logs
//                        `holding T` and never reads the monitor's events, as an app killed before it read them)
//   CoreLocationAppProbe monitor NAME beacon UUID ID --log FILE [--seconds N]
//                        (the same with a `BeaconIdentityCondition` of every beacon with UUID; decision 0053)
//
// `background` (issue 11) is an app locationd relaunches: it monitors the region unless it is
// monitored already (as iOS apps do when relaunched), and appends `launch T PID REASON`, `enter T ID`
// and `exit T ID` to FILE (the relaunched process has no terminal), each line written and synced
// inside the delegate call. `--crash-on-relaunch` exits with status 3 at once when started by locationd.
// `--significant` starts the significant-change service at every launch (as an iOS app must to get
// the changes it was relaunched for) and logs `location T LAT LON FIXTIME` (the fix's own time,
// seconds since 1970); `--visits` starts visits at every launch and logs `visit T LAT LON ARRIVAL DEPARTURE`.
//
// Lines: `authorization T STATUS`, `location T LAT LON`, `error T CODE`, `enter T ID`, `exit T ID`,
// `state T ID STATE`, `services T ENABLED`, `monitored T ID` (regions: monitoredRegions at start).
// Exits after N seconds (default 30) with status 0.

import CoreLocation
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One line straight to standard output (no buffering: tests read lines as they come).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private func now() -> String { String(format: "%.6f", ProcessInfo.processInfo.systemUptime) }

final class Probe: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    let mode: [String]

    init(mode: [String]) {
        self.mode = mode
        super.init()
        manager.delegate = self
        emit("services \(now()) \(CLLocationManager.locationServicesEnabled())")
        manager.requestWhenInUseAuthorization()
        switch mode.first {
        case "updates":
            manager.startUpdatingLocation()
            if mode.contains("--background") {
                manager.allowsBackgroundLocationUpdates = true
                manager.showsBackgroundLocationIndicator = mode.contains("--indicator")
                emit("background \(now()) \(manager.allowsBackgroundLocationUpdates)")
            }
        case "request": manager.requestLocation()
        case "regions":
            for region in manager.monitoredRegions.sorted(by: { $0.identifier < $1.identifier }) {
                emit("monitored \(now()) \(region.identifier)")
            }
        case "background":
            let values = mode.dropFirst().prefix(3).compactMap(Double.init)
            let monitored = manager.monitoredRegions.map(\.identifier)
            if values.count == 3, mode.count >= 5, !monitored.contains(mode[4]) {
                let region = CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: values[0], longitude: values[1]), radius: values[2],
                    identifier: mode[4])
                manager.startMonitoring(for: region)
            }
            if mode.contains("--significant") { manager.startMonitoringSignificantLocationChanges() }
            if mode.contains("--visits") { manager.startMonitoringVisits() }
        case "beacon-region":
            // `beacon-region UUID ID`: the region of every beacon with UUID, unless monitored already.
            if mode.count >= 3, let uuid = UUID(uuidString: mode[1]),
                !manager.monitoredRegions.contains(where: { $0.identifier == mode[2] })
            {
                manager.startMonitoring(for: CLBeaconRegion(uuid: uuid, identifier: mode[2]))
            }
        case "beacon-state":
            if mode.count >= 3, let uuid = UUID(uuidString: mode[1]) {
                manager.requestState(for: CLBeaconRegion(uuid: uuid, identifier: mode[2]))
            }
        case "region":
            let values = mode.dropFirst().prefix(3).compactMap(Double.init)
            if values.count == 3, mode.count >= 5 {
                let region = CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: values[0], longitude: values[1]), radius: values[2],
                    identifier: mode[4])
                manager.startMonitoring(for: region)
                manager.requestState(for: region)
            }
        default: break
        }
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        emit("authorization \(now()) \(manager.authorizationStatus.rawValue)")
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        for location in locations {
            let coordinate = String(format: "%.6f %.6f", location.coordinate.latitude, location.coordinate.longitude)
            emit("location \(now()) \(coordinate)")
            record("location \(now()) \(coordinate) \(String(format: "%.3f", location.timestamp.timeIntervalSince1970))")
        }
    }

    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        let coordinate = String(format: "%.6f %.6f", visit.coordinate.latitude, visit.coordinate.longitude)
        emit("visit \(now()) \(coordinate)")
        record(
            "visit \(now()) \(coordinate) \(String(format: "%.3f", visit.arrivalDate.timeIntervalSince1970)) "
                + String(format: "%.3f", visit.departureDate.timeIntervalSince1970))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        emit("error \(now()) \((error as NSError).code)")
    }

    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        emit("enter \(now()) \(region.identifier)")
        record("enter \(now()) \(region.identifier)")
    }

    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        emit("exit \(now()) \(region.identifier)")
        record("exit \(now()) \(region.identifier)")
    }

    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error) {
        emit("failed \(now()) \(region?.identifier ?? "-") \((error as NSError).code)")
        record("failed \(now()) \(region?.identifier ?? "-") \((error as NSError).code)")
    }

    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        emit("state \(now()) \(region.identifier) \(state.rawValue)")
    }
}

/// `session`: a background activity session (a service session with `--service`) and `liveUpdates`,
/// as a relaunched iOS app makes them again at launch; `--no-resume` skips the session when started
/// by locationd, `--invalidate` invalidates it after the first update.
private func startSession(_ mode: [String]) {
    let resume = !(mode.contains("--no-resume") && CLLocationManager.launchReason == .location)
    let service = resume && mode.contains("--service") ? CLServiceSession(authorization: .whenInUse) : nil
    let background = resume && !mode.contains("--service") ? CLBackgroundActivitySession() : nil
    if resume { record("session \(now())") }
    let invalidate = mode.contains("--invalidate")
    Task.detached {
        var first = true
        for try await update in CLLocationUpdate.liveUpdates() {
            guard let location = update.location else { continue }
            let coordinate = String(format: "%.6f %.6f", location.coordinate.latitude, location.coordinate.longitude)
            record("update \(now()) \(coordinate) \(String(format: "%.3f", location.timestamp.timeIntervalSince1970))")
            if first, invalidate {
                background?.invalidate()
                service?.invalidate()
                record("invalidated \(now())")
            }
            first = false
        }
        withExtendedLifetime((background, service)) {}
    }
}

/// `monitor NAME LAT LON RADIUS ID` (or `monitor NAME beacon UUID ID`): `CLMonitor(NAME)` with a
/// circular (or beacon identity) condition, added unless the monitor has it already (as a
/// relaunched app checks `identifiers`); each event is logged.
private func startMonitor(_ mode: [String], holdOnce mark: String?) {
    let condition: any CLCondition
    let (name, identifier): (String, String)
    let values = mode.dropFirst(2).prefix(3).compactMap(Double.init)
    if mode.count >= 5, mode[2] == "beacon", let uuid = UUID(uuidString: mode[3]) {
        (condition, name, identifier) = (CLMonitor.BeaconIdentityCondition(uuid: uuid), mode[1], mode[4])
    } else if mode.count >= 6, values.count == 3 {
        let center = CLLocationCoordinate2D(latitude: values[0], longitude: values[1])
        (condition, name, identifier) = (
            CLMonitor.CircularGeographicCondition(center: center, radius: values[2]), mode[1], mode[5]
        )
    } else {
        return
    }
    Task.detached {
        let monitor = await CLMonitor(name)
        let found = await monitor.identifiers.contains(identifier)
        if !found { await monitor.add(condition, identifier: identifier) }
        record("monitoring \(now()) \(identifier) \(found ? "found" : "added")")
        if let mark, CLLocationManager.launchReason == .location, !FileManager.default.fileExists(atPath: mark) {
            _ = FileManager.default.createFile(atPath: mark, contents: nil)
            record("holding \(now())")
            try await Task.sleep(for: .seconds(3600))
            return withExtendedLifetime(monitor) {}
        }
        for try await event in monitor.events {
            let state =
                switch event.state {
                case .satisfied: "satisfied"
                case .unsatisfied: "unsatisfied"
                case .unmonitored: "unmonitored"
                default: "unknown"
                }
            emit("condition \(now()) \(event.identifier) \(state)")
            record("condition \(now()) \(event.identifier) \(state)")
        }
    }
}

/// `--log FILE`: lines appended and synced before the delegate returns.
nonisolated(unsafe) var logDescriptor: Int32 = -1  // set once below, before any delegate call

private func record(_ line: String) {
    guard logDescriptor >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(logDescriptor, $0.baseAddress, $0.count) }
    _ = fsync(logDescriptor)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if let index = arguments.firstIndex(of: "--log"), index + 1 < arguments.count {
    logDescriptor = open(arguments[index + 1], O_WRONLY | O_CREAT | O_APPEND, 0o644)
    arguments.removeSubrange(index...(index + 1))
}
let reason = CLLocationManager.launchReason?.rawValue ?? "none"
record("launch \(now()) \(getpid()) \(reason)")
if let index = arguments.firstIndex(of: "--crash-on-relaunch") {
    arguments.remove(at: index)
    if CLLocationManager.launchReason == .location { exit(3) }
}
var seconds = 30.0
if let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count {
    seconds = Double(arguments[index + 1]) ?? 30
    arguments.removeSubrange(index...(index + 1))
}
let probe = Probe(mode: arguments)
if arguments.first == "session" { startSession(arguments) }
var holdOnce: String?
if let index = arguments.firstIndex(of: "--hold-once"), index + 1 < arguments.count {
    holdOnce = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
if arguments.first == "monitor" { startMonitor(arguments, holdOnce: holdOnce) }
DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { exit(0) }
withExtendedLifetime(probe) { RunLoop.main.run() }

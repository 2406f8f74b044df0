import CoreLocation
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// Latency from an NMEA epoch entering gpsd's feed to (a) the TPV line on a raw gpsd client and
// (b) `locationManager(_:didUpdateLocations:)`, for the same epochs in one run.
// Usage: GPSDLatency [EPOCHS] [INTERVAL_MS]     (defaults 600 and 20; the first 50 are warm-up)

let arguments = CommandLine.arguments
let epochCount = arguments.count > 1 ? Int(arguments[1]) ?? 600 : 600
let interval = (arguments.count > 2 ? Double(arguments[2]) ?? 20 : 20) / 1000
let warmUp = 50

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// Epoch k of a 1 Hz stream starting 2024-03-15 12:00:00 UTC: RMC, GGA, GSA, GST (CR LF each).
func epoch(_ k: Int) -> (text: String, time: String, date: Date) {
    let seconds = 12 * 3600 + k
    let hhmmss = String(format: "%02d%02d%02d", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
    let lat = String(format: "4807.%04d", (380 + 10 * k) % 10_000)
    let bodies = [
        "GPRMC,\(hhmmss).00,A,\(lat),N,01131.0000,E,37.9,18.4,150324,3.3,E,A",
        "GPGGA,\(hhmmss).00,\(lat),N,01131.0000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5",
        "GPGST,\(hhmmss).00,1.5,1.2,0.9,45.0,1.2,0.9,2.1",
    ]
    let text = bodies.map { body in
        "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^)) + "\r\n"
    }.joined()
    let date = Date(timeIntervalSince1970: 1_710_504_000 + Double(k))
    let time = String(format: "2024-03-15T%02d:%02d:%02d.000Z", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
    return (text, time, date)
}

guard let gpsd = ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd"].first(where: FileManager.default.isExecutableFile) else {
    fail("gpsd is not installed (apt-get install gpsd)")
}
guard let feed = Feed() else { fail("cannot listen for the NMEA feed") }
guard let (probe, gpsdPort) = listenLoopback() else { fail("no free port") }
close(probe)

let process = Process()
process.executableURL = URL(fileURLWithPath: gpsd)
process.arguments = ["-N", "-n", "-b", "-S", String(gpsdPort), "tcp://127.0.0.1:\(feed.port)"]
process.standardError = FileHandle.nullDevice
do { try process.run() } catch { fail("cannot start gpsd: \(error)") }
atexit {}
func stopGPSD() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

var ready = false
for _ in 0..<500 {
    if let fd = connectLoopback(gpsdPort) {
        close(fd)
        ready = feed.connected > 0
        if ready { break }
    }
    usleep(10_000)
}
guard ready else {
    stopGPSD()
    fail("gpsd did not start")
}

// Our side, configured as a user would: a sources.conf naming this gpsd.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpsd-latency-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let conf = directory.appendingPathComponent("sources.conf").path
let plist = directory.appendingPathComponent("Info.plist").path
try? "gpsd://127.0.0.1:\(gpsdPort)\n".write(toFile: conf, atomically: true, encoding: .utf8)
try? """
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.example.gpsd-latency</string>
<key>NSLocationWhenInUseUsageDescription</key><string>Measures gpsd latency.</string>
</dict></plist>
""".write(toFile: plist, atomically: true, encoding: .utf8)
setenv("CORELOCATION_SOURCES_CONF", conf, 1)
setenv("CORELOCATION_INFO_PLIST", plist, 1)
setenv("CORELOCATION_DATABASE", directory.appendingPathComponent("db.sqlite").path, 1)
setenv("CORELOCATION_DEFAULT_POLICY", "when-in-use", 1)
setenv("CORELOCATION_PROMPT", "never", 1)

guard let raw = RawWatcher(port: gpsdPort) else {
    stopGPSD()
    fail("cannot connect to gpsd")
}

final class Delegate: NSObject, CLLocationManagerDelegate, Sendable {
    let arrivals = Mutex<[Date: Double]>([:])
    let authorized = Mutex(false)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        if manager.authorizationStatus == .authorizedWhenInUse || manager.authorizationStatus == .authorizedAlways {
            authorized.withLock { $0 = true }
            manager.startUpdatingLocation()
        }
    }
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let now = monotonic()
        arrivals.withLock {
            for location in locations where $0[location.timestamp] == nil { $0[location.timestamp] = now }
        }
    }
}

let delegate = Delegate()
let manager = CLLocationManager()
manager.delegate = delegate
manager.desiredAccuracy = kCLLocationAccuracyBest
manager.requestWhenInUseAuthorization()

final class Writes: Sendable {
    let times = Mutex<[Double]>([])
    let finished = Atomic(false)
}
let writes = Writes()
Thread { [feed, delegate, writes, epochCount, interval] in
    // Wait for authorization and our connection, then feed.
    for _ in 0..<500 where !delegate.authorized.withLock({ $0 }) { usleep(10_000) }
    usleep(300_000)
    for k in 0..<epochCount {
        let (text, _, _) = epoch(k)
        let now = monotonic()
        feed.send(text)
        writes.times.withLock { $0.append(now) }
        usleep(UInt32(interval * 1_000_000))
    }
    usleep(500_000)
    writes.finished.store(true, ordering: .releasing)
}.start()

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func report() {
    let written = writes.times.withLock { $0 }
    var gpsdLatency: [Double] = []
    var ourLatency: [Double] = []
    var extra: [Double] = []
    var missing = 0
    for k in warmUp..<written.count {
        let (_, time, date) = epoch(k)
        guard let rawAt = raw.arrival(time), let ourAt = delegate.arrivals.withLock({ $0[date] }) else {
            missing += 1
            continue
        }
        gpsdLatency.append((rawAt - written[k]) * 1000)
        ourLatency.append((ourAt - written[k]) * 1000)
        extra.append((ourAt - rawAt) * 1000)
    }
    func line(_ name: String, _ values: [Double]) -> String {
        String(
            format: "%-44@ median %7.3f ms   p99 %7.3f ms", name as NSString, percentile(values, 0.5),
            percentile(values, 0.99))
    }
    print(
        "epochs measured: \(gpsdLatency.count) (after \(warmUp) warm-up; \(missing) missing), one every \(Int(interval * 1000)) ms"
    )
    print(line("feed → TPV on a raw gpsd client (gpsd's own)", gpsdLatency))
    print(line("feed → didUpdateLocations (ours, end to end)", ourLatency))
    print(line("our extra (didUpdateLocations − raw TPV)", extra))
    manager.stopUpdatingLocation()
    stopGPSD()
    try? FileManager.default.removeItem(at: directory)
    exit(missing > (written.count - warmUp) / 10 ? 1 : 0)
}

// Delegate calls come on the main thread's run loop, which turns here until the feed is done.
while !writes.finished.load(ordering: .acquiring) {
    _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05))
}
report()

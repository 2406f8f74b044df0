// Runs the bounded policy over GPX files the way `locationctl report --simulate FILE --speed max --dry-run
// --format json` does (every point a fix with 5 m accuracy and the recording's time, the time passed before
// each fix), writing the same decision lines, for score.py. A quick loop for the tuning half; run.sh's
// figures come from locationctl itself.
//
//   ReportPolicyRun OUT_DIR EPSILON FRESHNESS|off GPX...    # OUT_DIR/<track>.jsonl
import CoreLocationEngine
import CoreLocationReporting
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 5, let epsilon = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: ReportPolicyRun OUT_DIR EPSILON FRESHNESS|off GPX...\n".utf8))
    exit(2)
}
var parameters = BoundedPolicy.Parameters()
parameters.epsilon = epsilon
parameters.freshness = arguments[3] == "off" ? nil : Double(arguments[3])
// Knobs for tuning on the tuning half (decision 0064): the stay tracker's and the policy's wander parameters.
let knobs = ProcessInfo.processInfo.environment
if let v = knobs["WANDER_SPREAD"].flatMap(Double.init) { parameters.wanderSpread = v }
if let v = knobs["WANDER_CORE"].flatMap(Double.init) { parameters.wanderCore = v }
if let v = knobs["ENVELOPE"].flatMap(Double.init) { parameters.stays.maximumEnvelope = v }
if let v = knobs["MINRADIUS"].flatMap(Double.init) { parameters.stays.minimumRadius = v }
if let v = knobs["DEPARTURE"].flatMap(Double.init) { parameters.stays.departure = v }
if let v = knobs["WALKSPREAD"].flatMap(Double.init) { parameters.stays.walkSpreadFactor = v }
if let v = knobs["BEGIN"].flatMap(Double.init) { parameters.stays.beginWindow = v }
let out = URL(fileURLWithPath: arguments[1])
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
let pattern = /<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">(?:(?!<\/trkpt>)[\s\S])*?<time>([^<]+)<\/time>/
for path in arguments[4...] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var policy = BoundedPolicy(parameters: parameters)
    var screen = FixScreen()  // DEBUG_SCREEN: prints why each poor fix is poor
    let debug = ProcessInfo.processInfo.environment["DEBUG_SCREEN"] != nil
    var lines: [String] = []
    // TRACE_FROM/TRACE_TO (seconds since the first fix): the policy's phase and a mirror of its stay tracker.
    let traceFrom = knobs["TRACE_FROM"].flatMap(Double.init)
    let traceTo = knobs["TRACE_TO"].flatMap(Double.init) ?? .infinity
    var mirrorScreen = FixScreen()
    var mirror = StayTracker(parameters: parameters.stays)
    var start: Double?
    func write(_ decisions: [ReportDecision]) {
        for d in decisions {
            let p = d.point
            lines.append(
                "{\"type\":\"decision\",\"kind\":\"\(d.kind.rawValue)\",\"time\":\(p.time),"
                    + "\"decided_at\":\(d.decidedAt.timeIntervalSince1970),\"lat\":\(p.latitude),\"lon\":\(p.longitude),\"reason\":\"\(d.reason)\"}")
        }
    }
    for match in text.matches(of: pattern) {
        guard let lat = Double(match.1), let lon = Double(match.2),
            let date = try? Date(String(match.3), strategy: .iso8601)
        else { continue }
        if debug, case .poor(let why) = screen.screen(Fix(latitude: lat, longitude: lon, horizontalAccuracy: 5, timestamp: date)) {
            print("\(date) \(why)")
        }
        write(policy.tick(at: date))
        let before = lines.count
        let f = Fix(latitude: lat, longitude: lon, horizontalAccuracy: 5, timestamp: date)
        write(policy.handle(f))
        if let traceFrom {
            let t = date.timeIntervalSince1970 - (start ?? date.timeIntervalSince1970)
            if start == nil { start = date.timeIntervalSince1970 }
            let good = mirrorScreen.screen(f) == .good
            if good { mirror.observe(f) }
            if t >= traceFrom && t <= traceTo {
                let c = mirror.centre
                let d = c.map { SynchronizedDistance.distance(latitude1: $0.latitude, longitude1: $0.longitude, latitude2: lat, longitude2: lon) }
                print(String(format: "T %6.0f %@ %@ %@ d %@ spread %@ env %@ %@", t, policy.phase == .settled ? "SETTLED" : "moving ",
                    good ? "ok" : "POOR", mirror.isStaying ? (mirror.isSettled ? "STAY" : "away") : mirror.lastEnding == .walked ? "-wk-" : "-dp-",
                    d.map { String(format: "%5.0f", $0) } ?? "    -", mirror.spread.map { String(format: "%4.0f", $0) } ?? "   -",
                    mirror.envelope.map { String(format: "%4.0f", $0) } ?? "   -",
                    lines[before...].map { l in String(l.split(separator: "\"reason\":").last ?? "") }.joined(separator: " | ")))
            }
        }
    }
    write(policy.finish())
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    try (lines.joined(separator: "\n") + "\n").write(to: out.appendingPathComponent(name + ".jsonl"), atomically: true, encoding: .utf8)
}

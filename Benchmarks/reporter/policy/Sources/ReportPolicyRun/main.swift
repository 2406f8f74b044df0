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
// WANDER=off: without decision 0064's stays whose fixes wander (`locationctl report --no-wandering-stays`), the
// default before 2026-11-29's persistence test.
if ProcessInfo.processInfo.environment["WANDER"] == "off" { parameters.stays = nil }
// Tuning knobs (tuning half only): the stay tracker's parameters for the reporter.
func knob(_ name: String) -> Double? { ProcessInfo.processInfo.environment[name].flatMap(Double.init) }
if var stays = parameters.stays {
    if let v = knob("SWINDOW") { stays.window = v }
    if let v = knob("SWALK") { stays.walkingSpeed = v }
    if let v = knob("SSTAYW") { stays.stayingWindow = v }
    if let v = knob("SMIN") { stays.minimumRadius = v }
    if let v = knob("SENV") { stays.maximumEnvelope = v }
    if let v = knob("SDEP") { stays.departure = v }
    if let v = knob("SFACTOR") { stays.spreadFactor = v }
    parameters.stays = stays
}
if let v = knob("WSPREAD") { parameters.wanderSpread = v }
if let v = knob("WPERSIST") { parameters.wanderPersistence = v }
if let v = knob("WSTEP") { parameters.wanderStep = v }
if let v = knob("WLEAVE") { parameters.walkAwayPersistence = v }
if let v = knob("WLEAVED") { parameters.walkAwaySpreads = v }
if let v = knob("WOUTK") { parameters.walkOutSpreads = v }
if let v = knob("WOUTR") { parameters.walkOutFallbackSpreads = v }
if let v = knob("SILW") { parameters.silenceSpeedWindow = v }
let out = URL(fileURLWithPath: arguments[1])
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
let pattern = /<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">(?:(?!<\/trkpt>)[\s\S])*?<time>([^<]+)<\/time>/
for path in arguments[4...] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var policy = BoundedPolicy(parameters: parameters)
    var screen = FixScreen()  // DEBUG_SCREEN: prints why each poor fix is poor
    let debug = ProcessInfo.processInfo.environment["DEBUG_SCREEN"] != nil
    var lines: [String] = []
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
        write(policy.handle(Fix(latitude: lat, longitude: lon, horizontalAccuracy: 5, timestamp: date)))
    }
    write(policy.finish())
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    try (lines.joined(separator: "\n") + "\n").write(to: out.appendingPathComponent(name + ".jsonl"), atomically: true, encoding: .utf8)
}

import CoreLocationEngine
import Foundation

// Benchmarks/fusion (issue 40, decision 0095): GNSS outages of 10, 30, 60 s cut at straight roads, turns and stops
// of real tracks; the fusion filter against the last fix held, the last fix extrapolated, and a constant-velocity
// Kalman filter, all fed the same synthetic 1 Hz GNSS (and the filter the synthetic 100 Hz BMI160).
// Usage: FusionBench TRACKS_DIR SPLIT_FILE [tuning|reporting] [SEEDS]

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: FusionBench TRACKS_DIR SPLIT_FILE [tuning|reporting] [SEEDS]\n".utf8))
    exit(2)
}
let tracksDirectory = URL(fileURLWithPath: arguments[1])
let half = arguments.count > 3 ? arguments[3] : "reporting"
let seeds = arguments.count > 4 ? (UInt64(arguments[4]) ?? 3) : 3
let splitText = (try? String(contentsOfFile: arguments[2], encoding: .utf8)) ?? ""
let trackNames = splitText.split(separator: "\n").compactMap { line -> String? in
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    guard fields.count == 2, !line.hasPrefix("#"), fields[0] == half else { return nil }
    return String(fields[1])
}

struct Result {
    var endErrors: [String: [String: [Double]]] = [:]  // "class/duration" → method → errors
    var coveredPresent = 0
    var countPresent = 0
    var coveredOutage = 0
    var countOutage = 0
    var courseRaw: [Double] = []
    var courseFused: [Double] = []
    var speedRaw: [Double] = []
    var speedFused: [Double] = []
    var samples = 0
    var nanoseconds: Double = 0
    var rejected = 0
    var gnssError: [Double] = []
    var endCovered: [String: (Int, Int)] = [:]  // "class/duration" → (covered, count) at the outage's end
    var presentByMode: [Bool: (Int, Int)] = [:]  // inertial? → (covered, count) with GNSS
    var fusedError: [Double] = []
    var heightError: [Double] = []
    var heightCovered = 0
}

/// Seeded normal deviates for the bench's vertical input (SplitMix64, Box–Muller).
struct VerticalNoise {
    var state: UInt64
    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    mutating func gaussian() -> Double {
        (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform())
    }
}

func wrapDegrees(_ d: Double) -> Double {
    var a = d.truncatingRemainder(dividingBy: 360)
    if a > 180 { a -= 360 } else if a < -180 { a += 360 }
    return a
}

func p95(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(Int((0.95 * Double(sorted.count - 1)).rounded()), sorted.count - 1)]
}

func rms(_ values: [Double]) -> Double {
    values.isEmpty ? .nan : (values.map { $0 * $0 }.reduce(0, +) / Double(values.count)).squareRoot()
}

/// A plain constant-velocity Kalman filter on east/north (4 states), white acceleration 0.5 m/s²/√Hz (the
/// baseline; tuned on the tuning half as the fusion filter was).
struct ConstantVelocityFilter {
    var x = [0.0, 0, 0, 0]
    var p = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
    var time = 0.0
    var started = false
    let q = 0.5 * 0.5

    mutating func predict(to t: Double) {
        let dt = t - time
        guard dt > 0 else { return }
        time = t
        x[0] += x[2] * dt
        x[1] += x[3] * dt
        var f = [[1.0, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]]
        var fp = f
        for i in 0..<4 { for j in 0..<4 { fp[i][j] = (0..<4).map { f[i][$0] * p[$0][j] }.reduce(0, +) } }
        for i in 0..<4 { for j in 0..<4 { p[i][j] = (0..<4).map { fp[i][$0] * f[j][$0] }.reduce(0, +) } }
        for (i, j) in [(0, 2), (1, 3)] {
            p[i][i] += q * dt * dt * dt / 3
            p[i][j] += q * dt * dt / 2
            p[j][i] += q * dt * dt / 2
            p[j][j] += q * dt
        }
        f = []
    }

    mutating func update(index: Int, z: Double, variance: Double) {
        let s = p[index][index] + variance
        let k = (0..<4).map { p[$0][index] / s }
        let y = z - x[index]
        let row = p[index]
        for i in 0..<4 {
            x[i] += k[i] * y
            for j in 0..<4 { p[i][j] -= k[i] * row[j] }
        }
    }

    mutating func update(
        east: Double, north: Double, sigma: Double, ve: Double?, vn: Double?, vSigma: Double, t: Double
    ) {
        if !started {
            x = [east, north, ve ?? 0, vn ?? 0]
            p = [[sigma * sigma, 0, 0, 0], [0, sigma * sigma, 0, 0], [0, 0, 100, 0], [0, 0, 0, 100]]
            time = t
            started = true
            return
        }
        predict(to: t)
        update(index: 0, z: east, variance: sigma * sigma)
        update(index: 1, z: north, variance: sigma * sigma)
        if let ve, let vn {
            update(index: 2, z: ve, variance: vSigma * vSigma)
            update(index: 3, z: vn, variance: vSigma * vSigma)
        }
    }
}

func parseGPX(_ url: URL) -> [(time: Double, latitude: Double, longitude: Double)] {
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
    let formatter = ISO8601DateFormatter()
    let fractional = ISO8601DateFormatter()
    fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var points: [(Double, Double, Double)] = []
    for chunk in text.components(separatedBy: "<trkpt").dropFirst() {
        func attribute(_ name: String) -> Double? {
            guard let range = chunk.range(of: name + "=\"") else { return nil }
            let rest = chunk[range.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return Double(rest[..<end])
        }
        guard let lat = attribute("lat"), let lon = attribute("lon"),
            let open = chunk.range(of: "<time>"), let close = chunk.range(of: "</time>")
        else { continue }
        let stamp = String(chunk[open.upperBound..<close.lowerBound])
        guard let date = formatter.date(from: stamp) ?? fractional.date(from: stamp) else { continue }
        let t = date.timeIntervalSince1970
        if let last = points.last, t <= last.0 { continue }
        points.append((t, lat, lon))
    }
    return points
}

enum Method: String, CaseIterable { case held, extrapolated, cvkf = "cv-kalman", fusion }
let classes = ["straight", "turn", "stop"]
let durations = [10, 30, 60]

func classify(_ truth: [InertialSynthesizer.TruthSample], from start: Int, seconds: Int, rate: Int) -> String? {
    let end = start + seconds * rate
    guard end < truth.count else { return nil }
    var minSpeed = Double.infinity
    var maxSpeed = 0.0
    var turn = 0.0
    var previous = truth[start].yaw
    for k in stride(from: start, through: end, by: rate / 10) {
        minSpeed = min(minSpeed, truth[k].speed)
        maxSpeed = max(maxSpeed, truth[k].speed)
        var d = truth[k].yaw - previous
        d = atan2(sin(d), cos(d))
        turn += abs(d)
        previous = truth[k].yaw
    }
    let degrees = turn * 180 / .pi
    if maxSpeed < 0.5 { return "stop" }
    if minSpeed > 2, degrees < 20 { return "straight" }
    if minSpeed > 1, degrees > 45 { return "turn" }
    return nil
}

var result = Result()
var configuration = FusionFilter.Configuration()
// The tuned values (tuning half only); FUSION_* environment variables override them for tuning runs.

let environment = ProcessInfo.processInfo.environment
if let v = environment["FUSION_POSITION_SCALE"].flatMap(Double.init) { configuration.positionNoiseScale = v }
if let v = environment["FUSION_ACCELERATION_MODEL"].flatMap(Double.init) { configuration.accelerationModelNoise = v }
if let v = environment["FUSION_ALIGNMENT_SPEED"].flatMap(Double.init) { configuration.alignmentSpeed = v }
if let v = environment["FUSION_LATERAL"].flatMap(Double.init) { configuration.lateralVelocityNoise = v }
if let v = environment["FUSION_UNALIGNED"].flatMap(Double.init) { configuration.unalignedAccelerationNoise = v }
var perTrackCourse: [(String, Double, Double, Double, Double)] = []

for name in trackNames {
    let points = parseGPX(tracksDirectory.appendingPathComponent(name + ".gpx"))
    guard let synth = InertialSynthesizer(points: points) else {
        print("skip \(name): \(points.count) points")
        continue
    }
    let rate = Int(synth.rate)
    var trackCourseRaw: [Double] = []
    var trackCourseFused: [Double] = []
    var trackSpeedRaw: [Double] = []
    var trackSpeedFused: [Double] = []
    for seed in 1...seeds {
        let imu = synth.inertialSamples(seed: seed)
        let fixes = synth.gnssFixes(seed: 1000 + seed)
        let truth = synth.truth
        // Outage starts: every 15 s after a 120 s warm-up, classified by the 30 s that follow; at least 60 s apart.
        var starts: [Int: String] = [:]  // fix number → class
        var lastStart: [String: Int] = [:]
        for (number, entry) in fixes.enumerated() where number >= 120 && number % 15 == 0 {
            guard let kind = classify(truth, from: entry.index, seconds: 60, rate: rate) ?? classify(
                truth, from: entry.index, seconds: 30, rate: rate)
            else { continue }
            if let previous = lastStart[kind], number - previous < 60 { continue }
            lastStart[kind] = number
            starts[number] = kind
        }
        var filter = FusionFilter(configuration: configuration)
        var cv = ConstantVelocityFilter()
        // The vertical channel (0095, Height) exercised on flat ground: GNSS altitude 100 m HAE with 3 m white error
        // (stated 5 m), a barometer at 10 Hz reading 130 m (its bias 30 m) with 0.3 m white noise. Assumptions, not
        // measurements: the tracks carry no altitude the bench uses, and no barometer.
        var vertical = VerticalNoise(state: 2000 + UInt64(seed))
        var nextSample = 0
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        for (number, entry) in fixes.enumerated() {
            let t0 = clock.now
            while nextSample <= entry.index {
                filter.propagate(imu[nextSample])
                if nextSample % 10 == 0 {
                    filter.update(pressureAltitude: 130 + 0.3 * vertical.gaussian(), at: imu[nextSample].time)
                }
                nextSample += 1
            }
            let truthNow = truth[entry.index]
            let fixTime = truthNow.time
            var measured = entry.fix
            measured.ellipsoidalAltitude = 100 + 3 * vertical.gaussian()
            measured.altitude = measured.ellipsoidalAltitude
            measured.verticalAccuracy = 5
            let outcome = filter.update(gnss: measured, at: fixTime)
            filter.applyVehicleConstraint()
            elapsed += clock.now - t0
            if case .rejected = outcome { result.rejected += 1 }
            let (fe, fn) = synth.plane.project(latitude: entry.fix.latitude, longitude: entry.fix.longitude)
            let course = entry.fix.course * .pi / 180
            let ve: Double? = entry.fix.course >= 0 ? entry.fix.speed * sin(course) : nil
            let vn: Double? = entry.fix.course >= 0 ? entry.fix.speed * cos(course) : nil
            cv.update(
                east: fe, north: fn, sigma: entry.fix.horizontalAccuracy / FusionFilter.circular68, ve: ve, vn: vn,
                vSigma: entry.fix.speedAccuracy, t: fixTime)
            guard let estimate = filter.estimate, number >= 60 else { continue }
            let (ee, en) = synth.plane.project(latitude: estimate.latitude, longitude: estimate.longitude)
            let error = hypot(ee - truthNow.east, en - truthNow.north)
            result.fusedError.append(error)
            if let height = estimate.height {
                result.heightError.append(abs(height - 100))
                if abs(height - 100) <= estimate.verticalAccuracy { result.heightCovered += 1 }
            }
            result.gnssError.append(hypot(fe - truthNow.east, fn - truthNow.north))
            result.countPresent += 1
            if error <= estimate.horizontalAccuracy { result.coveredPresent += 1 }
            let mode = result.presentByMode[estimate.isInertial] ?? (0, 0)
            result.presentByMode[estimate.isInertial] = (
                mode.0 + (error <= estimate.horizontalAccuracy ? 1 : 0), mode.1 + 1
            )
            if truthNow.speed > 2 {
                let trueCourse = atan2(truthNow.velocityEast, truthNow.velocityNorth) * 180 / .pi
                if entry.fix.course >= 0 { trackCourseRaw.append(wrapDegrees(entry.fix.course - trueCourse)) }
                if estimate.course >= 0 { trackCourseFused.append(wrapDegrees(estimate.course - trueCourse)) }
                trackSpeedRaw.append(entry.fix.speed - truthNow.speed)
                trackSpeedFused.append(estimate.speed - truthNow.speed)
            }
            guard let kind = starts[number] else { continue }
            let lastEast = fe
            let lastNorth = fn
            let lastVE = ve ?? 0
            let lastVN = vn ?? 0
            for duration in durations {
                let endIndex = entry.index + duration * rate
                guard endIndex < truth.count else { continue }
                var copy = filter
                for k in (entry.index + 1)...endIndex {
                    copy.propagate(imu[k])
                    if (k - entry.index) % rate == 0 {
                        copy.applyVehicleConstraint()
                        if duration == 60, let e = copy.estimate {
                            let s = truth[k]
                            result.countOutage += 1
                            let (east, north) = synth.plane.project(latitude: e.latitude, longitude: e.longitude)
                            if hypot(east - s.east, north - s.north) <= e.horizontalAccuracy {
                                result.coveredOutage += 1
                            }
                        }
                    }
                }
                let end = truth[endIndex]
                let d = Double(duration)
                var cvCopy = cv
                cvCopy.predict(to: end.time)
                let errors: [Method: Double] = [
                    .held: hypot(lastEast - end.east, lastNorth - end.north),
                    .extrapolated: hypot(lastEast + lastVE * d - end.east, lastNorth + lastVN * d - end.north),
                    .cvkf: hypot(cvCopy.x[0] - end.east, cvCopy.x[1] - end.north),
                    .fusion: copy.estimate.map { e in
                        // The filter's plane is around its own first fix: compare on the synthesiser's.
                        let (east, north) = synth.plane.project(latitude: e.latitude, longitude: e.longitude)
                        return hypot(east - end.east, north - end.north)
                    } ?? .nan,
                ]
                if let e = copy.estimate {
                    let (east, north) = synth.plane.project(latitude: e.latitude, longitude: e.longitude)
                    let covered = hypot(east - end.east, north - end.north) <= e.horizontalAccuracy ? 1 : 0
                    for key in ["\(kind)/\(duration)", "all/\(duration)"] {
                        let c = result.endCovered[key] ?? (0, 0)
                        result.endCovered[key] = (c.0 + covered, c.1 + 1)
                    }
                }
                for (method, value) in errors {
                    result.endErrors["\(kind)/\(duration)", default: [:]][method.rawValue, default: []].append(value)
                    result.endErrors["all/\(duration)", default: [:]][method.rawValue, default: []].append(value)
                }
            }
        }
        result.samples += imu.count
        result.nanoseconds += Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    }
    perTrackCourse.append((name, rms(trackCourseRaw), rms(trackCourseFused), rms(trackSpeedRaw), rms(trackSpeedFused)))
    result.courseRaw += trackCourseRaw
    result.courseFused += trackCourseFused
}

print("half: \(half) (\(trackNames.joined(separator: ", "))), seeds 1...\(seeds)")
print("")
print("p95 horizontal error at the end of the outage, m (n = outages)")
print("| outage | n | held | extrapolated | cv-kalman | fusion | fusion / extrapolated | fusion's accuracy covers |")
print("|---|---|---|---|---|---|---|---|")
for kind in ["all"] + classes {
    for duration in durations {
        let key = "\(kind)/\(duration)"
        guard let row = result.endErrors[key] else { continue }
        let cells = Method.allCases.map { String(format: "%.1f", p95(row[$0.rawValue] ?? [])) }
        let ratio = p95(row["fusion"] ?? []) / p95(row["extrapolated"] ?? [])
        let c = result.endCovered[key] ?? (0, 0)
        let cover = String(format: "%.0f %%", 100 * Double(c.0) / Double(max(c.1, 1)))
        let count = row["fusion"]?.count ?? 0
        let ratioText = String(format: "%.2f", ratio)
        print("| \(kind) \(duration) s | \(count) | \(cells.joined(separator: " | ")) | \(ratioText) | \(cover) |")
    }
}
print("")
let coverPresent = Double(result.coveredPresent) / Double(max(result.countPresent, 1))
let coverOutage = Double(result.coveredOutage) / Double(max(result.countOutage, 1))
let coverAll = Double(result.coveredPresent + result.coveredOutage)
    / Double(max(result.countPresent + result.countOutage, 1))
print(
    String(
        format: "horizontalAccuracy covers the true error: %.1f %% with GNSS (%d fixes), %.1f %% in 60 s outages (%d), "
            + "%.1f %% pooled",
        100 * coverPresent, result.countPresent, 100 * coverOutage, result.countOutage, 100 * coverAll))
for (inertial, c) in result.presentByMode.sorted(by: { !$0.key && $1.key }) {
    let mode = inertial ? "IMU aligned" : "not yet aligned (constant velocity)"
    print(String(format: "  with GNSS, %@: %.1f %% of %d fixes", mode, 100 * Double(c.0) / Double(max(c.1, 1)), c.1))
}
print(
    String(
        format: "error with GNSS present: raw GNSS p95 %.1f m, fusion p95 %.1f m; GNSS fixes rejected by the gate: %d",
        p95(result.gnssError), p95(result.fusedError), result.rejected))
print("")
print("| track | course RMS raw GNSS, ° | fusion, ° | ratio | speed RMS raw, m/s | fusion, m/s | ratio |")
print("|---|---|---|---|---|---|---|")
for (name, cr, cf, sr, sf) in perTrackCourse {
    print(String(format: "| %@ | %.2f | %.2f | %.1f× | %.3f | %.3f | %.1f× |", name, cr, cf, cr / cf, sr, sf, sr / sf))
}
print("")
print(
    String(
        format: "height with GNSS altitude and a barometer (flat, assumed errors): error p95 %.1f m, verticalAccuracy "
            + "covers %.1f %% of %d fixes", p95(result.heightError),
        100 * Double(result.heightCovered) / Double(max(result.heightError.count, 1)), result.heightError.count))
print("")
let perSample = result.nanoseconds / Double(max(result.samples, 1))
print(
    String(
        format: "cost: %.0f ns per IMU sample (propagation + the GNSS updates, %d samples); "
            + "at 100 Hz %.3f %% of a core",
        perSample, result.samples, perSample * 100 / 1e9 * 100))

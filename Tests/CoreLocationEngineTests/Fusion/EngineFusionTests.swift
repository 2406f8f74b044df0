import CoreLocationEngine
import Foundation
import Testing

let imu = SourceDescriptor(
    id: SourceID("inertial:test"), kind: SourceDescriptor.inertialKind, expectedAccuracy: 1e9, powerCost: 1,
    isSimulated: true)
let wifi = SourceDescriptor(id: SourceID("wifi"), kind: "wifi", expectedAccuracy: 100, powerCost: 5, isSimulated: false)

/// A synthetic drive east along a straight road with its IMU (BMI160 errors) and a phone-grade receiver's fixes,
/// seeded (`InertialSynthesizer`), fed through the engine the way the runtime feeds it: each 100 Hz sample at its
/// time, each 1 Hz fix at its time after the sample of that instant.
struct FusionDrive {
    static let start = 1_000.0
    let synthesizer: InertialSynthesizer
    let samples: [InertialSample]
    let fixes: [(index: Int, fix: Fix)]

    /// `speed(t)`: m/s at `t` seconds from the start, for `seconds` seconds.
    init(seconds: Int, seed: UInt64 = 7, speed: (Double) -> Double) throws {
        let plane = LocalTangentPlane(latitude: 45.2, longitude: 13.6)
        var east = 0.0
        var points: [(time: Double, latitude: Double, longitude: Double)] = []
        for second in 0...seconds {
            let t = Double(second)
            if second > 0 { east += (speed(t - 1) + speed(t)) / 2 }
            let (latitude, longitude) = plane.unproject(east: east, north: 0)
            points.append((Self.start + t, latitude, longitude))
        }
        synthesizer = try #require(InertialSynthesizer(points: points))
        samples = synthesizer.inertialSamples(seed: seed)
        fixes = synthesizer.gnssFixes(seed: 1_000 + seed)
    }

    /// The truth at engine time `t`.
    func truth(at t: Double) -> InertialSynthesizer.TruthSample {
        let index = Int(((t - synthesizer.truth[0].time) * synthesizer.rate).rounded())
        return synthesizer.truth[min(max(index, 0), synthesizer.truth.count - 1)]
    }

    /// Metres between a fix and the truth at its time (its timestamp is on the engine's clock here).
    func error(of fix: Fix) -> Double {
        let truth = truth(at: fix.timestamp.timeIntervalSince1970)
        let (e, n) = synthesizer.plane.project(latitude: fix.latitude, longitude: fix.longitude)
        return hypot(e - truth.east, n - truth.north)
    }

    /// Runs the drive through an engine with `sources` and one client updating; fixes at times in `outage` are not
    /// sent, `replacing` swaps the fix at a time for another; no samples when `inertial` is false.
    func run(
        sources: [SourceDescriptor] = [gnss, imu], outage: ClosedRange<Double>? = nil, replacing: [Double: Fix] = [:],
        inertial: Bool = true, gnssSource: SourceID = gnss.id
    ) -> EngineDriver {
        var d = driver(sources)
        d.advance(to: Self.start)
        d.send(.client(app, .startUpdates(UpdateRequest())))
        let sent = fixes.compactMap { entry -> (time: Double, fix: Fix)? in
            let time = synthesizer.truth[entry.index].time
            return outage?.contains(time) == true ? nil : (time, replacing[time] ?? entry.fix)
        }
        d.replay(sent, through: gnssSource, samples: inertial ? samples : [], through: imu.id)
        return d
    }
}

/// GNSS + IMU fusion in the engine (decision 0095, Wiring), fed with time like every engine test.
@Suite struct EngineFusionTests {
    /// The tunnel: 30 s without GNSS on a straight road while the car slows from 15 to 8 m/s inside. Fixes keep
    /// coming at 1 Hz, all fused, their accuracy growing every second; the last one is far closer to the truth than
    /// the last fix extrapolated with its speed and course (which misses the braking); and when GNSS returns the
    /// estimate moves less than the two fixes' uncertainties. Fails without the wiring: no fix at all in the tunnel.
    @Test func aTunnelIsBridgedByDeadReckoningWithGrowingAccuracy() throws {
        let drive = try FusionDrive(seconds: 240) { t in t < 155 ? 15 : (t < 165 ? 15 - 0.7 * (t - 155) : 8) }
        let cut = (FusionDrive.start + 150.5)...(FusionDrive.start + 180.5)
        let d = drive.run(outage: cut)
        let delivered = d.deliveries(to: app).flatMap(\.fixes)
        let inside = delivered.filter { cut.contains($0.timestamp.timeIntervalSince1970) }
        #expect(inside.count >= 29, "a dead-reckoned fix every second of the 30 s outage")
        #expect(inside.allSatisfy { $0.isFused })
        for (a, b) in zip(inside, inside.dropFirst()) {
            #expect(b.horizontalAccuracy >= a.horizontalAccuracy, "accuracy grows through the outage")
            #expect(abs(b.timestamp.timeIntervalSince(a.timestamp) - 1) < 0.02, "at the GNSS rate")
        }
        let last = try #require(inside.last)
        // The baseline: the last fix before the tunnel, extrapolated with its speed and course to the same time.
        let before = try #require(drive.fixes.last { drive.synthesizer.truth[$0.index].time < cut.lowerBound }?.fix)
        let seconds = last.timestamp.timeIntervalSince(before.timestamp)
        let (e0, n0) = drive.synthesizer.plane.project(latitude: before.latitude, longitude: before.longitude)
        let course = before.course * .pi / 180
        let truth = drive.truth(at: last.timestamp.timeIntervalSince1970)
        let extrapolated = hypot(
            e0 + before.speed * sin(course) * seconds - truth.east, n0 + before.speed * cos(course) * seconds - truth.north)
        let fused = drive.error(of: last)
        #expect(extrapolated > 50, "the braking makes extrapolation miss (\(extrapolated) m)")
        #expect(fused < 0.25 * extrapolated, "dead reckoning \(fused) m vs extrapolation \(extrapolated) m")
        #expect(fused < 2 * last.horizontalAccuracy, "the accuracy is honest: \(fused) m, ±\(last.horizontalAccuracy) m")
        // GNSS back: the first fix after the tunnel against the last dead-reckoned one moved on by its velocity.
        let after = try #require(delivered.first { $0.timestamp.timeIntervalSince1970 > cut.upperBound })
        #expect(after.isFused)
        let dt = after.timestamp.timeIntervalSince(last.timestamp)
        let (e1, n1) = drive.synthesizer.plane.project(latitude: last.latitude, longitude: last.longitude)
        let (e2, n2) = drive.synthesizer.plane.project(latitude: after.latitude, longitude: after.longitude)
        let lastCourse = last.course * .pi / 180
        let jump = hypot(
            e2 - (e1 + last.speed * sin(lastCourse) * dt), n2 - (n1 + last.speed * cos(lastCourse) * dt))
        #expect(jump <= last.horizontalAccuracy + after.horizontalAccuracy, "jump \(jump) m on GNSS's return")
    }

    /// In the tunnel the receiver says it has no fix, and a Wi-Fi source answers (100 m, every 5 s): the dead-reckoned
    /// fixes, a few metres, keep the stream (arbitration against the last dead-reckoned fix, not the receiver's last).
    /// Fails without that rule: the receiver is unavailable, so the first Wi-Fi fix takes the stream.
    @Test func aWorseSourceDoesNotInterruptDeadReckoning() throws {
        let drive = try FusionDrive(seconds: 200) { _ in 13 }
        let cut = (FusionDrive.start + 120.5)...(FusionDrive.start + 150.5)
        var d = driver([gnss, wifi, imu])
        d.advance(to: FusionDrive.start)
        d.send(.client(app, .startUpdates(UpdateRequest())))
        var next = 0
        for (k, sample) in drive.samples.enumerated() {
            d.advance(to: sample.time)
            d.send(.source(imu.id, .inertial([sample])))
            while next < drive.fixes.count, drive.fixes[next].index <= k {
                let (index, fix) = drive.fixes[next]
                let time = drive.synthesizer.truth[index].time
                next += 1
                guard cut.contains(time) else {
                    d.send(.source(gnss.id, .fix(fix)))
                    continue
                }
                d.send(.source(gnss.id, .unavailable(reason: "no fix")))
                if Int(time) % 5 == 0 {
                    var coarse = fix
                    coarse.horizontalAccuracy = 100
                    d.send(.source(wifi.id, .fix(coarse)))
                }
            }
        }
        let inside = d.deliveries(to: app).flatMap(\.fixes).filter { cut.contains($0.timestamp.timeIntervalSince1970) }
        #expect(inside.count >= 29)
        #expect(inside.allSatisfy { $0.isFused && $0.horizontalAccuracy < 20 }, "no 100 m fix in between")
    }

    /// Dead reckoning stops at the stated limit: no fix later than 60 s after the last GNSS position (then the
    /// client hears kCLErrorLocationUnknown as without an IMU), and nothing is made up after the IMU is gone.
    @Test func deadReckoningStopsAtItsLimit() throws {
        let drive = try FusionDrive(seconds: 260) { _ in 12 }
        let cut = (FusionDrive.start + 100.5)...(FusionDrive.start + 250.5)
        let d = drive.run(outage: cut)
        let inside = d.deliveries(to: app).flatMap(\.fixes).filter { cut.contains($0.timestamp.timeIntervalSince1970) }
        let lastGNSS = FusionDrive.start + 100
        #expect(inside.count >= 55, "dead reckoning for most of its 60 s (\(inside.count) fixes)")
        let latest = try #require(inside.last).timestamp.timeIntervalSince1970
        #expect(latest <= lastGNSS + 60 + 1e-6)
        #expect(d.failures(of: app).contains(.locationUnknown), "after the limit, no position: the client is told")
    }

    /// A multipath jump (one fix 60 m off, reporting 5 m) is rejected by the filter's gate: the fix delivered at that
    /// time is the filter's, within metres of the truth. Without the wiring the 60 m jump is delivered.
    @Test func aMultipathJumpIsRejected() throws {
        let drive = try FusionDrive(seconds: 200) { _ in 14 }
        let index = try #require(
            drive.fixes.first { abs(drive.synthesizer.truth[$0.index].time - (FusionDrive.start + 150)) < 1e-6 })
        let time = drive.synthesizer.truth[index.index].time
        var jumped = index.fix
        let (e, n) = drive.synthesizer.plane.project(latitude: jumped.latitude, longitude: jumped.longitude)
        (jumped.latitude, jumped.longitude) = drive.synthesizer.plane.unproject(east: e, north: n + 60)
        jumped.horizontalAccuracy = 5
        let d = drive.run(replacing: [time: jumped])
        let delivered = try #require(
            d.deliveries(to: app).flatMap(\.fixes).first { abs($0.timestamp.timeIntervalSince1970 - time) < 1e-6 })
        #expect(drive.error(of: jumped) > 55)
        #expect(delivered.isFused)
        #expect(drive.error(of: delivered) < 10, "the jump is not passed on: \(drive.error(of: delivered)) m")
    }

    /// A vehicle that stops and stands for 10 minutes with GNSS: the fused position stays within 6 m of where it
    /// stands — closer than the receiver's own fixes come (its correlated error is 3 m per axis: they reach 8.5 m on
    /// this seed; the filter measured 4.2 m) — and its speed under 0.5 m/s: the IMU's biases, integrated at rest, do
    /// not carry it away. Fails without the wiring: nothing fused, and the raw fixes' worst is beyond the bound.
    @Test func aStandingVehicleDoesNotDrift() throws {
        let drive = try FusionDrive(seconds: 720) { t in t < 100 ? 12 : max(12 - 1.2 * (t - 100), 0) }
        let d = drive.run()
        let standing = d.deliveries(to: app).flatMap(\.fixes).filter {
            $0.timestamp.timeIntervalSince1970 >= FusionDrive.start + 120
        }
        #expect(standing.count >= 595)
        #expect(standing.allSatisfy { $0.isFused })
        let worst = standing.map(drive.error(of:)).max() ?? .infinity
        let receiver = drive.fixes.map(\.fix).filter { $0.timestamp.timeIntervalSince1970 >= FusionDrive.start + 120 }
            .map(drive.error(of:)).max() ?? 0
        #expect(worst < 6, "drift at rest: \(worst) m")
        #expect(worst < receiver, "the fused position at rest is steadier than the receiver's (\(receiver) m)")
        #expect(standing.map(\.speed).max() ?? .infinity < 0.5)
    }

    /// Without inertial samples the engine delivers every fix exactly as its source made it: with no inertial
    /// source at all, and with one that is on but silent.
    @Test func withoutInertialInputFixesAreDeliveredUnmodified() throws {
        let drive = try FusionDrive(seconds: 30) { _ in 10 }
        for sources in [[gnss], [gnss, imu]] {
            let d = drive.run(sources: sources, inertial: false)
            let delivered = d.deliveries(to: app).flatMap(\.fixes)
            #expect(delivered == drive.fixes.map(\.fix))
            #expect(!delivered.contains { $0.isFused })
        }
    }

    /// Only GNSS-class fixes are fused: a Wi-Fi fix (a 100 m source) goes out as it came, IMU or not; and the IMU
    /// is powered only with a GNSS-class source.
    @Test func onlyGNSSClassFixesAreFusedAndTheIMUIsPoweredWithThem() throws {
        let drive = try FusionDrive(seconds: 60) { _ in 10 }
        var wifiFixes: [Double: Fix] = [:]
        for entry in drive.fixes {
            var fix = entry.fix
            fix.horizontalAccuracy = 80
            wifiFixes[drive.synthesizer.truth[entry.index].time] = fix
        }
        let d = drive.run(sources: [wifi, imu], replacing: wifiFixes, gnssSource: wifi.id)
        let delivered = d.deliveries(to: app).flatMap(\.fixes)
        #expect(delivered.count == drive.fixes.count)
        #expect(!delivered.contains { $0.isFused })
        #expect(d.poweredSources == [wifi.id], "no IMU without a GNSS-class source")

        var powered = driver([gnss, imu])
        powered.send(.client(app, .startUpdates(UpdateRequest())))
        #expect(powered.poweredSources == [gnss.id, imu.id])
        powered.send(.client(app, .stopUpdates))
        #expect(powered.poweredSources.isEmpty, "off with the receiver when nobody wants locations")
    }
}

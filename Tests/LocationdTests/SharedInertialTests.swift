import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationRuntime
import Foundation
import Synchronization
import Testing

/// One IMU shared by every app (decision 0095, Wiring; 0096): a real locationd with a fake IIO tree (a bmi160 read
/// by polling, `CORELOCATION_SYSFS_ROOT`) and a simulated drive (a GPX track). Two apps — this test process on a raw
/// connection and `locationctl track` — both get fused fixes; the device is opened once, for the first;
/// `locationctl sources` through the daemon lists it, off before any app needs it and powered after.
@Suite(.serialized) struct SharedInertialTests {
    /// A bmi160 without a buffer (polled) under `root`, at rest and level; a sensor's noise is mimicked by
    /// `wiggle`, since six raw values that never change are a frozen sensor and are withheld (decision 0096).
    final class FakeIMU: Sendable {
        let root: String
        var device: String { root + "/bus/iio/devices/iio:device0" }
        private let stopped = Mutex(false)

        init(root: String) throws {
            self.root = root
            let device = root + "/bus/iio/devices/iio:device0"
            try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: root + "/dev", withIntermediateDirectories: true)
            let files = [
                "name": "bmi160", "in_accel_scale": "0.000598", "in_anglvel_scale": "0.001065",
                "sampling_frequency": "25", "sampling_frequency_available": "25 50 100 200",
                "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384",
                "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0",
            ]
            for (name, value) in files { try write(name, value) }
        }

        /// Atomically (a new file renamed over the old), so the daemon's reads never see a half-written value.
        func write(_ name: String, _ value: String) throws {
            try Data((value + "\n").utf8).write(
                to: URL(fileURLWithPath: device + "/" + name), options: .atomic)
        }

        func read(_ name: String) -> String? {
            (try? String(contentsOfFile: device + "/" + name, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Changes the last bit of one accelerometer and one gyroscope axis every 20 ms on a thread of its own
        /// until `stop` (the device's noise; no assertion depends on this timing).
        func wiggle() {
            Thread { [self] in
                var k = 0
                while !stopped.withLock({ $0 }) {
                    k += 1
                    try? write("in_accel_z_raw", String(16384 + k % 2))
                    try? write("in_anglvel_x_raw", String(k % 2))
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }.start()
        }

        func stop() { stopped.withLock { $0 = true } }
    }

    @Test func oneIMUIsSharedByTwoAppsWhoseFixesAreFused() async throws {
        let harness = try DaemonHarness()
        let imu = try FakeIMU(root: harness.directory + "/sys")
        imu.wiggle()
        defer { imu.stop() }
        let extra = ["CORELOCATION_SYSFS_ROOT": imu.root, "CORELOCATION_DEV_ROOT": imu.root + "/dev"]
        // A straight road east at 12 m/s, a point a second for ten minutes (the IMU at rest says the same: no
        // acceleration, no turn).
        let step = 12 / (111_320 * cos(45.2 * .pi / 180))
        let route = try GPXTrack.write(
            (0..<600).map { (45.2, 13.6 + Double($0) * step) }, in: harness.directory,
            creator: "SharedInertialTests")
        try await harness.start(["--simulate", route], extra: extra)
        // Listed before any app needs it: off.
        let idle = try await harness.run("locationctl", ["sources"], extra: extra)
        #expect(
            idle.status == 0 && idle.stdout.contains("inertial:iio:device0 (bmi160)  inertial  off"),
            "\(idle)")

        // The first app: this test process on a raw connection.
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
        let (messages, _) = try await Polling.onOwnThread { DaemonHarness.readMessages(fd, limit: 1) }
        guard case .hello(let hello)? = messages.first else {
            Issue.record("no hello: \(messages)")
            return
        }
        #expect(
            try await harness.run("locationctl", ["authorize", hello.app, "when-in-use"]).status == 0)
        let register = ClientMessage.request(id: 1, body: .register(client: 1, label: "shared-imu"))
        let start = ClientMessage.request(
            id: 2, body: .command(client: 1, command: .startUpdates(WireUpdateRequest(UpdateRequest()))))
        #expect(
            UnixSocket.writeAll(fd, try DaemonProtocol.frame(register) + DaemonProtocol.frame(start)))
        let first = try await Polling.onOwnThread { Self.fixes(fd, untilFused: 3, atMost: 30) }
        #expect(
            first.filter { $0.isFused }.count >= 3, "the first app's fixes: \(first.map(\.isFused))")

        // Opened for the first app: the polled device was asked for 100 Hz. Put back, a second opening would ask again.
        #expect(imu.read("sampling_frequency") == "100")
        try imu.write("sampling_frequency", "25")
        let sources = try await harness.run("locationctl", ["sources"], extra: extra)
        #expect(
            sources.stdout.components(separatedBy: "\n").filter { $0.contains("inertial:") }.count == 1
                && sources.stdout.contains("inertial:iio:device0 (bmi160)  inertial  powered"), "\(sources)"
        )

        // The second app: locationctl, through the daemon, its own engine over the same samples.
        #expect(
            try await harness.run("locationctl", ["authorize", "locationctl", "when-in-use"]).status == 0)
        let track = try await harness.run(
            "locationctl", ["track", "--limit", "8", "--format", "json"], extra: extra)
        #expect(track.status == 0, "\(track)")
        let fused = track.stdout.components(separatedBy: "\n").filter { $0.contains(#""fused":true"#) }
        #expect(fused.count >= 3, "locationctl's fixes: \(track.stdout)")
        #expect(
            imu.read("sampling_frequency") == "25", "the device was not opened again for the second app")
        // And the first app still hears fused fixes.
        let later = try await Polling.onOwnThread { Self.fixes(fd, untilFused: 2, atMost: 10) }
        #expect(later.filter { $0.isFused }.count >= 2)
    }

    /// The fixes delivered on `fd` until `untilFused` of them are fused or `atMost` arrived (10 s per read at most).
    static func fixes(_ fd: Int32, untilFused wanted: Int, atMost limit: Int) -> [Fix] {
        UnixSocket.setReceiveTimeout(fd, seconds: 10)
        var decoder = FrameDecoder()
        var found: [Fix] = []
        while found.count < limit, found.filter(\.isFused).count < wanted {
            var progressed = false
            while let frame = try? decoder.next() {
                progressed = true
                if case .event(_, .client(_, .delivery(let delivery)))? = try? DaemonProtocol.decode(
                    DaemonMessage.self, from: frame)
                {
                    found += Delivery(delivery).fixes
                }
            }
            if progressed { continue }
            let bytes = UnixSocket.readSome(fd)
            if bytes.isEmpty { break }
            decoder.append(bytes)
        }
        return found
    }
}

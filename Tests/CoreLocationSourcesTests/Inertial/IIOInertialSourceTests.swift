import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocationSources

#if canImport(Glibc)
    import Glibc
#endif

/// Fake sysfs trees in three drivers' layouts (and a polled-only device), with buffer bytes written by hand and the
/// expected samples worked out on paper: value = (raw + offset) × scale, then the mounting matrix.
struct IIOInertialSourceTests {
    /// 1.7 × 10⁹ s in nanoseconds plus a fraction: a realtime IIO timestamp, beyond a Double's integer precision.
    static let t0: Int64 = 1_700_000_000_123_456_789
    static let ms: Int64 = 1_000_000

    static func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    // MARK: bmi160: one device, little-endian, gyro before accel in the scan, a data-ready trigger

    /// A bmi160 tree, its source discovered and started on a manual scheduler, and what it delivers.
    static func startedBMI160() throws
        -> (FakeSysfs, FakeDev, ManualScheduler, IIOInertialSource, InertialRecorder)
    {
        let (fake, dev) = try bmi160()
        let scheduler = ManualScheduler()
        let source = try discovered(fake, dev, scheduler)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        return (fake, dev, scheduler, source, recorder)
    }

    /// The source discovered on a fake tree and its device nodes.
    static func discovered(_ fake: FakeSysfs, _ dev: FakeDev, _ scheduler: ManualScheduler) throws -> IIOInertialSource {
        try #require(IIOInertialSource.discover(sysfsRoot: fake.root, devRoot: dev.root, scheduler: scheduler))
    }

    static func bmi160() throws -> (FakeSysfs, FakeDev) {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "bmi160")
        try fake.writeRaw(0, type: "accel", (0, 0, 16384))
        try fake.writeRaw(0, type: "anglvel", (0, 0, 0))
        try fake.write(0, "in_accel_scale", "0.000598")
        try fake.write(0, "in_anglvel_scale", "0.001065")
        try fake.write(0, "in_accel_sampling_frequency", "25")
        try fake.write(0, "in_accel_sampling_frequency_available", "25 50 100 200 400 800 1600")
        try fake.write(0, "in_anglvel_sampling_frequency", "25")
        try fake.write(0, "in_anglvel_sampling_frequency_available", "25 50 100 200 400 800 1600 3200")
        try fake.write(0, "current_timestamp_clock", "realtime")
        for (i, axis) in ["x", "y", "z"].enumerated() {
            try fake.writeScanElement(0, "in_anglvel_\(axis)", index: i, type: "le:s16/16>>0")
            try fake.writeScanElement(0, "in_accel_\(axis)", index: 3 + i, type: "le:s16/16>>0")
        }
        try fake.writeScanElement(0, "in_timestamp", index: 6, type: "le:s64/64>>0")
        try fake.writeScanElement(0, "in_temp", index: 7, type: "le:s16/16>>0")
        try fake.writeNested(0, "scan_elements/in_temp_en", "1")  // left on by someone: must be turned off
        try fake.writeNested(0, "buffer/enable", "0")
        try fake.writeNested(0, "buffer/length", "4")
        try fake.writeNested(0, "trigger/current_trigger", "")
        try fake.writeTrigger(0, name: "bmi160-dev0")
        let dev = try FakeDev()
        try dev.create(0)
        return (fake, dev)
    }

    /// gyro x, y, z, accel x, y, z (le s16 at 0…10), 4 bytes of padding, the timestamp at 16: 24 bytes.
    static func bmi160Scan(gyro: (Int, Int, Int), accel: (Int, Int, Int), at ns: Int64) -> [UInt8] {
        le16(gyro.0) + le16(gyro.1) + le16(gyro.2) + le16(accel.0) + le16(accel.1) + le16(accel.2) + [0, 0, 0, 0]
            + le64(ns)
    }

    @Test func bmi160BufferIsDecodedScaledAndStampedOnTheSchedulersTimeline() throws {
        let (fake, dev) = try Self.bmi160()
        let scheduler = ManualScheduler()
        let source = try Self.discovered(fake, dev, scheduler)
        #expect(source.mode == .buffered && source.name == "iio:device0 (bmi160)")
        #expect(source.sampleRate == 100 && source.plannedRate == 100)  // 100 is in the available list
        // Discovery reads, never writes: the buffer is off, the frequency untouched.
        #expect(fake.read(0, "buffer/enable") == "0" && fake.read(0, "in_accel_sampling_frequency") == "25")
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()  // the first poll opens the device
        #expect(fake.read(0, "buffer/enable") == "1" && source.isPowered)
        #expect(fake.read(0, "trigger/current_trigger") == "bmi160-dev0")
        #expect(fake.read(0, "in_accel_sampling_frequency") == "100" && source.sampleRate == 100)
        #expect(fake.read(0, "buffer/length") == "200")  // 2 s at 100 Hz
        #expect(
            fake.read(0, "scan_elements/in_accel_x_en") == "1" && fake.read(0, "scan_elements/in_timestamp_en") == "1")
        #expect(fake.read(0, "scan_elements/in_temp_en") == "0")
        #expect(fake.read(0, "current_timestamp_clock") == "monotonic")

        try dev.append(0, Self.bmi160Scan(gyro: (100, -200, 300), accel: (0, 0, 16384), at: Self.t0))
        try dev.append(
            0, Self.bmi160Scan(gyro: (101, -200, 300), accel: (-16384, 1, 16383), at: Self.t0 + 10 * Self.ms))
        scheduler.advance(by: 0.05)
        let samples = recorder.samples
        #expect(samples.count == 2 && recorder.failures.isEmpty)
        let first = try #require(samples.first)
        // 16384 × 0.000598 = 9.797632 m/s²; 100 × 0.001065 = 0.1065 rad/s, −200 × … = −0.213, 300 × … = 0.3195.
        #expect(first.accelerationX == 0 && first.accelerationY == 0 && Self.close(first.accelerationZ, 9.797632))
        #expect(Self.close(first.rotationRateX, 0.1065) && Self.close(first.rotationRateY, -0.213))
        #expect(Self.close(first.rotationRateZ, 0.3195))
        let second = samples[1]
        #expect(Self.close(second.accelerationX, -9.797632) && Self.close(second.accelerationY, 0.000598))
        #expect(Self.close(second.rotationRateX, 0.107565))
        // Read at 0.05: the newest scan (t0 + 10 ms) is placed at the read, the older one 10 ms before.
        #expect(Self.close(first.time, 0.04) && Self.close(second.time, 0.05))

        // Five more scans 10 ms apart read at 0.10: the offset stays, the kernel's spacing is kept.
        for k in 2..<7 {
            try dev.append(
                0, Self.bmi160Scan(gyro: (k, -k, k), accel: (k, k, 16384 - k), at: Self.t0 + Int64(k) * 10 * Self.ms))
        }
        scheduler.advance(by: 0.05)
        let times = recorder.samples.map(\.time)
        #expect(
            times.count == 7
                && zip(times, [0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10]).allSatisfy { Self.close($0, $1) })

        source.stop()
        #expect(fake.read(0, "buffer/enable") == "0" && !source.isPowered)
        try dev.create(0)  // the kernel's buffer starts empty when enabled again
        try dev.append(0, Self.bmi160Scan(gyro: (9, 9, 9), accel: (9, 9, 9), at: Self.t0 + 70 * Self.ms))
        scheduler.advance(by: 1)
        #expect(recorder.samples.count == 7 && scheduler.pendingCount == 0)

        // Started again: the buffer goes back on and the waiting scan is read.
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(fake.read(0, "buffer/enable") == "1")
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 8)
        source.stop()
    }

    /// A read that ends inside a scan delivers the complete scans and keeps the rest for the next read.
    @Test func truncatedBufferReadIsCompletedByTheNext() throws {
        let (fake, dev, scheduler, source, recorder) = try Self.startedBMI160()
        // The fake tree is removed when its value goes: it must outlive the reads.
        defer { withExtendedLifetime(fake) {} }
        let scan = Self.bmi160Scan(gyro: (1, 2, 3), accel: (4, 5, 16000), at: Self.t0)
        let next = Self.bmi160Scan(gyro: (7, 8, 9), accel: (10, 11, 16001), at: Self.t0 + 10 * Self.ms)
        try dev.append(0, scan + next.prefix(13))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 1 && recorder.failures.isEmpty)
        try dev.append(0, Array(next.dropFirst(13)))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 2)
        #expect(Self.close(recorder.samples[1].rotationRateZ, 9 * 0.001065))
        #expect(Self.close(recorder.samples[1].accelerationZ, 16001 * 0.000598))
        source.stop()
    }

    /// The device vanishes: unavailable on every poll, buffer not touched; it comes back: reopened, samples again.
    @Test func disappearingDeviceIsUnavailableAndRecovers() throws {
        let (fake, dev, scheduler, source, recorder) = try Self.startedBMI160()
        try dev.append(0, Self.bmi160Scan(gyro: (1, 2, 3), accel: (4, 5, 16000), at: Self.t0))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 1)
        try fake.remove(0)
        scheduler.advance(by: 0.1)
        #expect(recorder.failures == ["iio:device0 disappeared", "iio:device0 disappeared"] && !source.isPowered)
        // Back (a driver rebind): a fresh tree and node.
        let (back, _) = try Self.bmi160()
        for file in try FileManager.default.subpathsOfDirectory(atPath: back.devicePath(0)) {
            let from = back.devicePath(0) + "/" + file
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: from, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            try fake.writeNested(0, file, back.read(0, file) ?? "")
        }
        try dev.create(0)
        scheduler.advance(by: 0.05)
        #expect(fake.read(0, "buffer/enable") == "1" && source.isPowered)
        try dev.append(0, Self.bmi160Scan(gyro: (1, 2, 3), accel: (4, 5, 16001), at: Self.t0 + 2_000 * Self.ms))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 2 && recorder.failures.count == 2)
        source.stop()
    }

    /// A FIFO stands in for the node as well as a regular file: the reader takes what the writer has written and
    /// finds nothing (EAGAIN) in between.
    @Test func fifoNodeIsReadAsTheKernelsWould() throws {
        let (fake, dev) = try Self.bmi160()
        try FileManager.default.removeItem(atPath: dev.node(0))
        #expect(mkfifo(dev.node(0), 0o600) == 0)
        let scheduler = ManualScheduler()
        let source = try Self.discovered(fake, dev, scheduler)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        let writer = open(dev.node(0), O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0)
        defer { _ = Glibc.close(writer) }
        let scans =
            Self.bmi160Scan(gyro: (5, 6, 7), accel: (1, 2, 16384), at: Self.t0)
            + Self.bmi160Scan(gyro: (5, 6, 8), accel: (1, 2, 16383), at: Self.t0 + 10 * Self.ms)
        #expect(scans.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) } == 48)
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 2 && recorder.failures.isEmpty)
        scheduler.advance(by: 0.05)  // nothing written: no samples, no failure
        #expect(recorder.samples.count == 2 && recorder.failures.isEmpty)
        #expect(Self.close(recorder.samples[1].rotationRateZ, 8 * 0.001065))
        source.stop()
    }

    // MARK: st_lsm6dsx: two devices, no trigger (hardware FIFO), per-axis scale

    static func lsm6dsx() throws -> (FakeSysfs, FakeDev) {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "bmp280")  // a barometer first: not part of the unit
        try fake.write(0, "in_pressure_input", "101.325")
        for (index, name, type) in [(1, "lsm6dsm_accel", "accel"), (2, "lsm6dsm_gyro", "anglvel")] {
            try fake.write(index, "name", name)
            try fake.writeRaw(index, type: type, (0, 0, 0))
            for axis in ["x", "y", "z"] {
                try fake.write(index, "in_\(type)_\(axis)_scale", type == "accel" ? "0.000598" : "0.000153")
            }
            try fake.write(index, "sampling_frequency", "12.5")
            try fake.write(index, "sampling_frequency_available", "12.5 26 52 104 208 416 833")
            for (i, axis) in ["x", "y", "z"].enumerated() {
                try fake.writeScanElement(index, "in_\(type)_\(axis)", index: i, type: "le:s16/16>>0")
            }
            try fake.writeScanElement(index, "in_timestamp", index: 3, type: "le:s64/64>>0")
            try fake.writeNested(index, "buffer/enable", "0")
        }
        let dev = try FakeDev()
        try dev.create(1)
        try dev.create(2)
        return (fake, dev)
    }

    /// x, y, z (le s16), 2 bytes of padding, the timestamp at 8: 16 bytes.
    static func lsmScan(_ v: (Int, Int, Int), at ns: Int64) -> [UInt8] {
        le16(v.0) + le16(v.1) + le16(v.2) + [0, 0] + le64(ns)
    }

    @Test func lsm6dsxTwoDevicesArePairedAndInterpolated() throws {
        let (fake, dev) = try Self.lsm6dsx()
        let scheduler = ManualScheduler()
        let source = try Self.discovered(fake, dev, scheduler)
        #expect(source.name == "iio:device1 (lsm6dsm_accel) + iio:device2 (lsm6dsm_gyro)" && source.mode == .buffered)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(fake.read(1, "buffer/enable") == "1" && fake.read(2, "buffer/enable") == "1")
        #expect(fake.read(1, "sampling_frequency") == "104" && source.sampleRate == 104)
        // Accelerometer at 0, 10, 20 ms; gyroscope at 5, 15, 25 ms.
        for k in 0..<3 {
            try dev.append(1, Self.lsmScan((1000 * (k + 1), 0, 16384), at: Self.t0 + Int64(10 * k) * Self.ms))
            try dev.append(2, Self.lsmScan((100 * (k + 1), 0, 0), at: Self.t0 + Int64(10 * k + 5) * Self.ms))
        }
        scheduler.advance(by: 0.05)
        // The gyro scan at 25 ms waits for an accelerometer scan after it. Newest stamp (25 ms) read at 0.05:
        // 5 ms ↦ 0.03, 15 ms ↦ 0.04. Acceleration halfway: raw 1500 and 2500 × 0.000598.
        let samples = recorder.samples
        #expect(samples.count == 2 && recorder.failures.isEmpty)
        #expect(
            samples.map(\.time).count == 2 && Self.close(samples[0].time, 0.03) && Self.close(samples[1].time, 0.04))
        #expect(Self.close(samples[0].accelerationX, 0.897) && Self.close(samples[1].accelerationX, 1.495))
        #expect(
            Self.close(samples[0].rotationRateX, 100 * 0.000153) && Self.close(samples[1].rotationRateX, 200 * 0.000153)
        )
        try dev.append(1, Self.lsmScan((4000, 0, 16384), at: Self.t0 + 30 * Self.ms))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.count == 3 && Self.close(recorder.samples[2].accelerationX, 3500 * 0.000598))
        #expect(Self.close(recorder.samples[2].time, 0.05))
        source.stop()
        #expect(fake.read(1, "buffer/enable") == "0" && fake.read(2, "buffer/enable") == "0")
    }

    /// The accelerometer stops while the gyroscope goes on: its scans wait (256 at most), then it is reported.
    @Test func silentAccelerometerOfAPairIsReported() throws {
        let (fake, dev) = try Self.lsm6dsx()
        let scheduler = ManualScheduler()
        let source = try Self.discovered(fake, dev, scheduler)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        try dev.append(1, Self.lsmScan((1, 0, 16384), at: Self.t0))
        try dev.append(2, (1...256).flatMap { Self.lsmScan(($0, 0, 0), at: Self.t0 + Int64($0) * 10 * Self.ms) })
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.isEmpty && recorder.failures.isEmpty)
        try dev.append(2, Self.lsmScan((257, 0, 0), at: Self.t0 + 2_570 * Self.ms))
        scheduler.advance(by: 0.05)
        #expect(recorder.samples.isEmpty && recorder.failures == ["iio:device1 delivers no scans"])
        source.stop()
    }

    /// Pairing by name needs the suffix; an accelerometer without a gyroscope is no IMU.
    @Test func accelerometerAloneIsNoUnit() throws {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "bmc150_accel")
        try fake.writeRaw(0, type: "accel", (0, 0, 1000))
        #expect(IIOInertialSensors.discover(sysfsRoot: fake.root) == nil)
        try fake.write(1, "name", "l3g4200d")  // another chip's gyro: not paired by name
        try fake.writeRaw(1, type: "anglvel", (0, 0, 0))
        #expect(IIOInertialSensors.discover(sysfsRoot: fake.root) == nil)
        #expect(
            IIOInertialSensors.nameStem("LSM6DSO_Gyro") == "lsm6dso" && IIOInertialSensors.nameStem("x-accel") == "x")
    }

    /// Two devices whose sysfs entries link into one chip's directory are paired whatever their names.
    @Test func devicesOfOneChipArePairedByParent() throws {
        let fake = try FakeSysfs()
        let chip = fake.root + "/devices/i2c-1/1-006a"
        for (index, name, type) in [(3, "acc", "accel"), (4, "gyr", "anglvel")] {
            let real = chip + "/iio:device\(index)"
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
            for axis in ["x", "y", "z"] {
                try Data("0\n".utf8).write(to: URL(fileURLWithPath: "\(real)/in_\(type)_\(axis)_raw"))
            }
            try Data((name + "\n").utf8).write(to: URL(fileURLWithPath: real + "/name"))
            try FileManager.default.createSymbolicLink(atPath: fake.devicePath(index), withDestinationPath: real)
        }
        let sensors = try #require(IIOInertialSensors.discover(sysfsRoot: fake.root))
        #expect(sensors.accelerometer.deviceName == "iio:device3" && sensors.gyroscope.deviceName == "iio:device4")
    }

    // MARK: inv_mpu6050: big-endian, shared scales, a temperature channel in the middle, in_mount_matrix

    @Test func mpu6050BigEndianWithMountMatrix() throws {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "mpu6050")
        try fake.writeRaw(0, type: "accel", (0, 0, 16384))
        try fake.writeRaw(0, type: "anglvel", (0, 0, 0))
        try fake.write(0, "in_accel_scale", "0.000598")
        try fake.write(0, "in_anglvel_scale", "0.001064724")
        try fake.write(0, "in_accel_x_offset", "-100")  // offsets apply before the scale
        try fake.write(0, "sampling_frequency", "50")
        // Main x = chip y, main y = −chip x (the chip turned 90° on the board).
        try fake.write(0, "in_mount_matrix", "0, 1, 0; -1, 0, 0; 0, 0, 1")
        for (i, axis) in ["x", "y", "z"].enumerated() {
            try fake.writeScanElement(0, "in_accel_\(axis)", index: i, type: "be:s16/16>>0")
            try fake.writeScanElement(0, "in_anglvel_\(axis)", index: 4 + i, type: "be:s16/16>>0")
        }
        try fake.writeScanElement(0, "in_temp", index: 3, type: "be:s16/16>>0")
        try fake.writeScanElement(0, "in_timestamp", index: 7, type: "le:s64/64>>0")
        try fake.writeNested(0, "buffer/enable", "0")
        try fake.writeNested(0, "trigger/current_trigger", "")
        try fake.writeTrigger(0, name: "mpu6050-dev0")
        let dev = try FakeDev()
        try dev.create(0)
        let scheduler = ManualScheduler()
        let source = try Self.discovered(fake, dev, scheduler)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(
            fake.read(0, "trigger/current_trigger") == "mpu6050-dev0" && fake.read(0, "sampling_frequency") == "100")
        // Temperature off: accel at 0, 2, 4; gyro at 6, 8, 10; timestamp at 16; 24 bytes.
        let scan =
            be16(1100) + be16(-500) + be16(16384) + be16(0) + be16(2000) + be16(-3) + [0, 0, 0, 0] + le64(Self.t0)
        try dev.append(0, scan)
        scheduler.advance(by: 0.05)
        let sample = try #require(recorder.samples.first)
        // Chip accel ((1100 − 100), −500, 16384) × 0.000598 = (0.598, −0.299, 9.797632); main = (chip y, −chip x, z).
        #expect(Self.close(sample.accelerationX, -0.299) && Self.close(sample.accelerationY, -0.598))
        #expect(Self.close(sample.accelerationZ, 9.797632))
        // Chip gyro (0, 2000, −3) × 0.001064724 = (0, 2.129448, −0.003194172); main = (2.129448, 0, −0.003194172).
        #expect(Self.close(sample.rotationRateX, 2.129448) && Self.close(sample.rotationRateY, 0))
        #expect(Self.close(sample.rotationRateZ, -0.003194172))
        source.stop()
    }

    // MARK: polled only: no buffer

    static func polled(rate: String? = "50") throws -> FakeSysfs {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "icm20602")
        try fake.writeRaw(0, type: "accel", (10, -20, 8192))
        try fake.writeRaw(0, type: "anglvel", (1, 2, 3))
        try fake.write(0, "in_accel_scale", "0.001196")
        try fake.write(0, "in_anglvel_scale", "0.000266")
        if let rate {
            try fake.write(0, "sampling_frequency", rate)
            try fake.write(0, "sampling_frequency_available", "12.5 25 \(rate)")
        }
        return fake
    }

    @Test func polledDeviceIsReadAtItsOwnRateAtMost() throws {
        let fake = try Self.polled()
        let scheduler = ManualScheduler()
        let source = try #require(
            IIOInertialSource.discover(sysfsRoot: fake.root, devRoot: "/nonexistent", scheduler: scheduler))
        guard case .polled(let reason) = source.mode else {
            Issue.record("not polled")
            return
        }
        #expect(reason.contains("has no buffer"))
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        for k in 1...5 {
            scheduler.advance(by: 0.02)
            try fake.writeRaw(0, type: "anglvel", (1 + k, 2, 3))
        }
        // 100 Hz asked, the device converts at 50: read at 0, 0.02, …, 0.10.
        let samples = recorder.samples
        #expect(source.sampleRate == 50 && samples.count == 6)
        #expect(zip(samples.map(\.time), [0, 0.02, 0.04, 0.06, 0.08, 0.10]).allSatisfy { Self.close($0, $1) })
        #expect(Self.close(try #require(source.measuredRate), 50))
        // 8192 × 0.001196 = 9.797632; −20 × 0.001196 = −0.02392; 1 × 0.000266.
        #expect(Self.close(samples[0].accelerationZ, 9.797632) && Self.close(samples[0].accelerationY, -0.02392))
        #expect(Self.close(samples[0].rotationRateX, 0.000266) && Self.close(samples[5].rotationRateX, 5 * 0.000266))
        source.stop()
        scheduler.advance(by: 1)
        #expect(recorder.samples.count == 6)
    }

    /// Identical raw values for `frozenAfter` (here 10 at 10 Hz) polls: withheld, one `.unavailable` per poll,
    /// until a value changes.
    @Test func frozenSensorIsWithheld() throws {
        let fake = try Self.polled(rate: nil)
        let scheduler = ManualScheduler()
        let source = try #require(
            IIOInertialSource.discover(sysfsRoot: fake.root, devRoot: "/nonexistent", scheduler: scheduler, rate: 10))
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.advance(by: 1.25)  // polls at 0, 0.1, …, 1.2: 13
        #expect(recorder.samples.count == 9 && recorder.failures.count == 4)
        #expect(recorder.failures.allSatisfy { $0.contains("frozen") && $0.contains("iio:device0 (icm20602)") })
        try fake.writeRaw(0, type: "accel", (11, -20, 8192))
        scheduler.advance(by: 0.1)
        #expect(recorder.samples.count == 10 && recorder.failures.count == 4)
        source.stop()
    }

    @Test func saturatedImplausibleAndNaNAreWithheld() throws {
        let fake = try Self.polled(rate: nil)
        let scheduler = ManualScheduler()
        let source = try #require(
            IIOInertialSource.discover(sysfsRoot: fake.root, devRoot: "/nonexistent", scheduler: scheduler, rate: 10))
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(recorder.samples.count == 1)
        try fake.writeRaw(0, type: "accel", (10, 32767, 8192))
        scheduler.advance(by: 0.1)
        #expect(recorder.samples.count == 1 && recorder.failures.last?.contains("saturated") == true)
        // 20000 × 0.001196 = 23.9 m/s² is fine, but × 10 = 239 m/s² (24 g) is beyond ±16 g.
        try fake.writeRaw(0, type: "accel", (10, 20000, 8192))
        scheduler.advance(by: 0.1)
        #expect(recorder.samples.count == 2)
        try fake.write(0, "in_accel_scale", "0.01196")
        source.stop()
        scheduler.advance(by: 0.05)
        source.start(recorder.handler)  // scales are read when a run starts
        scheduler.runDue()
        #expect(recorder.samples.count == 2 && recorder.failures.last?.contains("implausible") == true)
        try fake.write(0, "in_anglvel_y_raw", "nan")
        scheduler.advance(by: 0.1)
        #expect(recorder.failures.last == "iio:device0: in_anglvel_y_raw does not hold a number")
        #expect(recorder.failures.count == 3 && recorder.samples.count == 2)
        source.stop()
    }

    @Test func rootsComeFromTheEnvironment() throws {
        let (fake, dev) = try Self.bmi160()
        let environment = ["CORELOCATION_SYSFS_ROOT": fake.root, "CORELOCATION_DEV_ROOT": dev.root]
        let source = try #require(IIOInertialSource.discover(environment: environment, scheduler: ManualScheduler()))
        #expect(source.mode == .buffered)
        let noDev = try #require(
            IIOInertialSource.discover(
                environment: ["CORELOCATION_SYSFS_ROOT": fake.root, "CORELOCATION_DEV_ROOT": fake.root],
                scheduler: ManualScheduler()))
        #expect(noDev.mode == .polled(reason: "\(fake.root)/iio:device0 does not exist"))
        #expect(IIOInertialSource.devRoot(environment: [:]) == "/dev")
    }

    @Test func noUnitNoSource() throws {
        let fake = try FakeSysfs()
        #expect(IIOInertialSource.discover(sysfsRoot: fake.root, scheduler: ManualScheduler()) == nil)
    }
}

/// The pure parts: the check, the timeline mapping, the pairing.
struct InertialChecksTests {
    static func sample(_ value: Double) -> InertialSample {
        InertialSample(
            time: 0, accelerationX: value, accelerationY: 0, accelerationZ: 9.8, rotationRateX: 0, rotationRateY: 0,
            rotationRateZ: 0)
    }

    @Test func frozenAfterIsOneSecondOfSamplesAtLeast10() {
        #expect(InertialSampleCheck(rate: 100).frozenAfter == 100 && InertialSampleCheck(rate: 4).frozenAfter == 10)
        var check = InertialSampleCheck(rate: 10)
        let problems = (0..<12).map { _ in
            check.problem(raw: [1, 2, 3, 4, 5, 6], isSaturated: false, sample: Self.sample(1))
        }
        #expect(
            problems.prefix(9).allSatisfy { $0 == nil }
                && problems.suffix(3).allSatisfy { $0?.contains("frozen") == true })
        let changed = check.problem(raw: [1, 2, 3, 4, 5, 7], isSaturated: false, sample: Self.sample(1))
        let notANumber = check.problem(raw: [0], isSaturated: false, sample: Self.sample(.nan))
        let beyond16g = check.problem(raw: [1], isSaturated: false, sample: Self.sample(16 * 9.81))
        let saturated = check.problem(raw: [2], isSaturated: true, sample: Self.sample(1))
        #expect(changed == nil && notANumber?.contains("implausible") == true)
        #expect(beyond16g?.contains("implausible") == true && saturated?.contains("saturated") == true)
    }

    /// The newest scan of the first read sits at the read; a later, lower-latency read lowers the offset only by
    /// more than 5 ms; a stamp that maps more than 0.5 s before its read re-anchors.
    @Test func timestampMapping() {
        var mapping = IIOTimestampMapping()
        let t0: Int64 = 1_700_000_000_000_000_000
        let ms: Int64 = 1_000_000
        func close(_ a: [Double], _ b: [Double]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-12 }
        }
        let first = mapping.times(of: [t0, t0 + 10 * ms], readAt: 5)
        #expect(close(first, [4.99, 5]))
        // Read at 5.052 with the newest 50 ms after t0: latency 0.012 → placed at 5.04 (offset kept).
        let kept = mapping.times(of: [t0 + 50 * ms], readAt: 5.052)
        #expect(close(kept, [5.04]))
        // Stamp 100 ms after t0 read at 5.07: it would map to 5.09, after the read: offset lowered by 20 ms.
        let lowered = mapping.times(of: [t0 + 100 * ms], readAt: 5.07)
        #expect(lowered.count == 1 && abs(lowered[0] - 5.07) < 1e-12)
        // The clock steps back 2 s: the stamp maps 2 s before its read: re-anchored on it.
        let stepped = mapping.times(of: [t0 - 1_900 * ms], readAt: 5.2)
        #expect(stepped.count == 1 && abs(stepped[0] - 5.2) < 1e-12)
    }
}

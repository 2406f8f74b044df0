import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocationSources

/// The IIO buffer's two sysfs layouts (legacy `buffer/` + `scan_elements/`, buffers v2's `buffer0/`) and the trigger
/// put back by `stop` (decision 0096).
struct IIOBufferLayoutTests {
    typealias T = IIOInertialSourceTests

    /// The bmi160 tree as a kernel with buffers v2 and without the legacy directories shows it: `buffer0/enable`,
    /// `buffer0/length` and the scan elements, all in `buffer0/`.
    static func bmi160BuffersV2() throws -> (FakeSysfs, FakeDev) {
        let (fake, dev) = try T.bmi160()
        let fm = FileManager.default
        let device = fake.devicePath(0)
        try fm.createDirectory(atPath: device + "/buffer0", withIntermediateDirectories: true)
        for directory in ["scan_elements", "buffer"] {
            for entry in try fm.contentsOfDirectory(atPath: device + "/" + directory) {
                try fm.moveItem(atPath: "\(device)/\(directory)/\(entry)", toPath: "\(device)/buffer0/\(entry)")
            }
            try fm.removeItem(atPath: device + "/" + directory)
        }
        return (fake, dev)
    }

    /// Found, buffered, switched on and read through `buffer0/`, and off again there on `stop`.
    @Test func buffersV2LayoutIsFoundEnabledReadAndDisabled() throws {
        let (fake, dev) = try Self.bmi160BuffersV2()
        #expect(fake.read(0, "scan_elements/in_accel_x_en") == nil && fake.read(0, "buffer/enable") == nil)
        let scheduler = ManualScheduler()
        let source = try T.discovered(fake, dev, scheduler)
        #expect(source.mode == .buffered)
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(fake.read(0, "buffer0/enable") == "1" && source.isPowered)
        #expect(fake.read(0, "buffer0/length") == "200")
        #expect(fake.read(0, "buffer0/in_accel_x_en") == "1" && fake.read(0, "buffer0/in_timestamp_en") == "1")
        #expect(fake.read(0, "buffer0/in_temp_en") == "0")
        try dev.append(0, T.bmi160Scan(gyro: (100, -200, 300), accel: (0, 0, 16384), at: T.t0))
        scheduler.advance(by: 0.05)
        let sample = try #require(recorder.samples.first)
        #expect(T.close(sample.accelerationZ, 9.797632) && T.close(sample.rotationRateZ, 0.3195))
        source.stop()
        #expect(fake.read(0, "buffer0/enable") == "0" && !source.isPowered)
    }

    /// Both layouts: no trigger was set before the run; the run sets the driver's own, `stop` clears it again (and a
    /// second run sets and clears it once more).
    @Test(arguments: [false, true]) func stopPutsTheTriggerBack(buffersV2: Bool) throws {
        let (fake, dev) = try buffersV2 ? Self.bmi160BuffersV2() : T.bmi160()
        let scheduler = ManualScheduler()
        let source = try T.discovered(fake, dev, scheduler)
        #expect(fake.read(0, "trigger/current_trigger") == "")
        for _ in 0..<2 {
            source.start(InertialRecorder().handler)
            scheduler.runDue()
            #expect(fake.read(0, "trigger/current_trigger") == "bmi160-dev0")
            source.stop()
            #expect(fake.read(0, "trigger/current_trigger") == "")
        }
    }

    /// A trigger someone else set (a sysfs or hrtimer trigger) is used as it is and left set: nothing to put back.
    @Test func aTriggerAlreadySetIsLeftAsItWas() throws {
        let (fake, dev) = try T.bmi160()
        try fake.writeNested(0, "trigger/current_trigger", "sysfstrig0")
        let scheduler = ManualScheduler()
        let source = try T.discovered(fake, dev, scheduler)
        source.start(InertialRecorder().handler)
        scheduler.runDue()
        #expect(fake.read(0, "trigger/current_trigger") == "sysfstrig0" && source.isPowered)
        source.stop()
        #expect(fake.read(0, "trigger/current_trigger") == "sysfstrig0")
    }

    /// Opening fails after the trigger was set (the node cannot be opened): the trigger is put back at once.
    @Test func aFailedOpenPutsTheTriggerBack() throws {
        let (fake, dev) = try T.bmi160()
        let scheduler = ManualScheduler()
        let source = try T.discovered(fake, dev, scheduler)
        try FileManager.default.removeItem(atPath: dev.node(0))
        let recorder = InertialRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(!source.isPowered && !recorder.failures.isEmpty)
        #expect(fake.read(0, "trigger/current_trigger") == "")
        #expect(fake.read(0, "buffer/enable") == "0")
        source.stop()
    }
}

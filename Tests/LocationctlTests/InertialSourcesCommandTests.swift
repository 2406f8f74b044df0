import Foundation
import Testing

/// `locationctl sources` lists the IIO inertial unit (issue 40, decision 0096) with its devices, mode and rate, from
/// a fake sysfs tree, without turning its buffer on.
@Suite struct InertialSourcesCommandTests {
    /// An inv_mpu6050 with a buffer and a trigger; `buffered: false` leaves the scan elements out (polled).
    func tree(_ sandbox: Sandbox, buffered: Bool) throws -> String {
        let device = sandbox.directory.appendingPathComponent("sys/bus/iio/devices/iio:device0")
        var files = ["name": "mpu6050", "sampling_frequency": "50", "sampling_frequency_available": "10 50 100 200"]
        for type in ["accel", "anglvel"] {
            files["in_\(type)_scale"] = "0.001"
            for (i, axis) in ["x", "y", "z"].enumerated() {
                files["in_\(type)_\(axis)_raw"] = "0"
                if buffered {
                    files["scan_elements/in_\(type)_\(axis)_en"] = "0"
                    files["scan_elements/in_\(type)_\(axis)_index"] = String((type == "accel" ? 0 : 4) + i)
                    files["scan_elements/in_\(type)_\(axis)_type"] = "be:s16/16>>0"
                }
            }
        }
        if buffered {
            files["buffer/enable"] = "0"
            files["trigger/current_trigger"] = "mpu6050-dev0"
        }
        for (name, value) in files {
            let url = device.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((value + "\n").utf8).write(to: url)
        }
        let dev = sandbox.directory.appendingPathComponent("dev")
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        try Data().write(to: dev.appendingPathComponent("iio:device0"))
        return sandbox.directory.path
    }

    @Test func listsTheUnitWithModeAndRate() async throws {
        let sandbox = try Sandbox()
        let root = try tree(sandbox, buffered: true)
        let environment = ["CORELOCATION_SYSFS_ROOT": root + "/sys", "CORELOCATION_DEV_ROOT": root + "/dev"]
        let run = try await sandbox.locationctl("sources", "--source", "nmea:/nonexistent.nmea", extra: environment)
        #expect(run.stdout.contains("inertial: iio:device0 (mpu6050) — buffered, 100 Hz"), "\(run)")
        let enable = try String(
            contentsOfFile: root + "/sys/bus/iio/devices/iio:device0/buffer/enable", encoding: .utf8)
        #expect(enable == "0\n")  // listed, not powered

        let json = try await sandbox.locationctl(
            "sources", "--source", "nmea:/nonexistent.nmea", "--format", "json", extra: environment)
        let inertial = try #require(try jsonObject(json.stdout)["inertial"] as? [String: Any], "\(json)")
        #expect(inertial["mode"] as? String == "buffered" && inertial["rate"] as? Double == 100)

        let polledSandbox = try Sandbox()
        let polledRoot = try tree(polledSandbox, buffered: false)
        let polled = try await sandbox.locationctl(
            "sources", "--source", "nmea:/nonexistent.nmea",
            extra: ["CORELOCATION_SYSFS_ROOT": polledRoot + "/sys", "CORELOCATION_DEV_ROOT": polledRoot + "/dev"])
        #expect(
            polled.stdout.contains("inertial: iio:device0 (mpu6050) — polled, 100 Hz (iio:device0 has no buffer"),
            "\(polled)")
    }
}

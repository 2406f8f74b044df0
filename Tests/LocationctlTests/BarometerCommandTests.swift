import Foundation
import Testing

/// `locationctl sources` with barometers (issue 18): the device and its pressure from a fake sysfs tree
/// (`CORELOCATION_SYSFS_ROOT`), and a clear note for a bad reading or a missing sensor.
@Suite struct BarometerCommandTests {
    func tree(_ sandbox: Sandbox, pressureKPa: String) throws -> String {
        let device = sandbox.directory.appendingPathComponent("sys/bus/iio/devices/iio:device0")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        try Data("bmp280\n".utf8).write(to: device.appendingPathComponent("name"))
        try Data("\(pressureKPa)\n".utf8).write(to: device.appendingPathComponent("in_pressure_input"))
        try Data("23450\n".utf8).write(to: device.appendingPathComponent("in_temp_input"))
        return sandbox.directory.appendingPathComponent("sys").path
    }

    @Test func listsTheBarometerWithItsPressure() async throws {
        let sandbox = try Sandbox()
        let root = try tree(sandbox, pressureKPa: "96.413000000")
        let run = try await sandbox.locationctl(
            "sources", "--source", "barometer:", extra: ["CORELOCATION_SYSFS_ROOT": root])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("barometer: (barometer)"), "\(run)")
        #expect(run.stdout.contains("device: iio:device0 (bmp280)"), "\(run)")
        #expect(run.stdout.contains("pressure: 964.13 hPa"), "\(run)")
        #expect(run.stdout.contains("reachable: yes"), "\(run)")

        let json = try await sandbox.locationctl(
            "sources", "--source", "iio-pressure:iio:device0", "--format", "json",
            extra: ["CORELOCATION_SYSFS_ROOT": root])
        let object = try jsonObject(json.stdout)
        let source = try #require((object["sources"] as? [[String: Any]])?.first, "\(json)")
        #expect(source["kind"] as? String == "barometer")
        #expect(abs((source["pressure"] as? Double ?? 0) - 964.13) < 1e-6)
    }

    @Test func badReadingAndMissingSensorAreNamed() async throws {
        let sandbox = try Sandbox()
        let root = try tree(sandbox, pressureKPa: "0")
        let run = try await sandbox.locationctl(
            "sources", "--source", "barometer:", extra: ["CORELOCATION_SYSFS_ROOT": root])
        #expect(run.stdout.contains("reachable: no"), "\(run)")
        #expect(run.stdout.contains("zero or negative"), "\(run)")
        let missing = try await sandbox.locationctl(
            "sources", "--source", "barometer:iio:device7", extra: ["CORELOCATION_SYSFS_ROOT": root])
        #expect(missing.stdout.contains("no IIO pressure sensor iio:device7 under"), "\(missing)")
    }

    @Test func badURLsAreRefused() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("sources", "--source", "barometer:?ground=100")
        #expect(run.status != 0)
        #expect(run.stderr.contains("a venue needs both ground and floor-height"), "\(run)")
    }
}

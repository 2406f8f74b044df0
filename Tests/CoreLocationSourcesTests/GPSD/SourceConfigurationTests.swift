import Foundation
import Testing

@testable import CoreLocationSources

@Suite struct SourceConfigurationTests {
    @Test func parsesEveryKindOfURL() throws {
        let cases: [(String, SourceSpec)] = [
            ("gpsd://", .gpsd(.localhost)),
            ("gpsd://10.0.0.5", .gpsd(GPSDEndpoint(host: "10.0.0.5", port: 2947))),
            ("gpsd://pi.local:3000", .gpsd(GPSDEndpoint(host: "pi.local", port: 3000))),
            ("gpsd://[::1]:2948/", .gpsd(GPSDEndpoint(host: "::1", port: 2948))),
            ("nmea:/var/log/drive.nmea", .nmea(.file(path: "/var/log/drive.nmea", pace: .realTime))),
            ("nmea:relative/file.nmea", .nmea(.file(path: "relative/file.nmea", pace: .realTime))),
            ("serial:/dev/ttyUSB0?baud=9600", .nmea(.serial(path: "/dev/ttyUSB0", baud: 9600))),
            ("serial:/dev/ttyACM0", .nmea(.serial(path: "/dev/ttyACM0", baud: nil))),
            ("tcp://192.168.1.7:10110", .nmea(.tcp(host: "192.168.1.7", port: 10110))),
            ("  stdin ", .nmea(.stdin)),
        ]
        for (text, expected) in cases {
            #expect(try SourceSpec.parse(text) == expected, "\(text)")
        }
        #expect(SourceSpec.gpsd(GPSDEndpoint(host: "::1", port: 2948)).description == "gpsd://[::1]:2948")
        #expect(
            SourceSpec.nmea(.serial(path: "/dev/ttyUSB0", baud: 9600)).description == "serial:/dev/ttyUSB0?baud=9600")
    }

    @Test func rejectsBadURLsWithACode() {
        let cases: [(String, SourceConfigurationError.Code)] = [
            ("gpsd://host:0", .invalidPort),
            ("gpsd://host:99999", .invalidPort),
            ("tcp://host", .invalidPort),
            ("tcp://:2000", .invalidURL),
            ("serial:/dev/ttyUSB0?baud=fast", .invalidBaudRate),
            ("serial:/dev/ttyUSB0?parity=even", .invalidURL),
            ("http://example.com", .unsupportedScheme),
            ("/dev/ttyUSB0", .invalidURL),
        ]
        for (text, code) in cases {
            #expect(performing: { try SourceSpec.parse(text) }, throws: { code ~= $0 })
        }
    }

    @Test func configFileLinesAndComments() throws {
        let text = """
            # receivers on this machine
            gpsd://127.0.0.1:2947

               serial:/dev/ttyACM0?baud=115200   # the roof antenna
            #stdin
            """
        #expect(
            try SourcesConfigFile.parse(text) == [
                .gpsd(.localhost), .nmea(.serial(path: "/dev/ttyACM0", baud: 115200)),
            ])
        #expect(
            performing: { try SourcesConfigFile.parse("gpsd://\nbogus\n", origin: "/etc/x.conf") },
            throws: { ($0 as? SourceConfigurationError)?.description.hasPrefix("/etc/x.conf:2: bogus") == true }
        )
    }

    @Test func whichFileCounts() {
        #expect(
            SourcesConfigFile.candidatePaths(environment: [
                "CORELOCATION_SOURCES_CONF": "/t/s.conf", "XDG_CONFIG_HOME": "/x",
            ]) == ["/t/s.conf"])
        #expect(
            SourcesConfigFile.candidatePaths(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == [
                "/x/corelocation/sources.conf", "/etc/corelocation/sources.conf",
            ])
        #expect(
            SourcesConfigFile.candidatePaths(environment: ["HOME": "/h"]) == [
                "/h/.config/corelocation/sources.conf", "/etc/corelocation/sources.conf",
            ])
    }

    @Test func selectionPrecedence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sources.conf").path
        try "tcp://10.0.0.9:10110\n".write(toFile: file, atomically: true, encoding: .utf8)
        let missing = directory.appendingPathComponent("none.conf").path

        let cli = try SourceSelection.resolve(
            commandLine: [.nmea(.stdin)], environment: ["CORELOCATION_SOURCES_CONF": file]
        ) { _ in true }
        #expect(cli.specs == [.nmea(.stdin)] && cli.origin == .commandLine)
        let fromFile = try SourceSelection.resolve(environment: ["CORELOCATION_SOURCES_CONF": file]) { _ in true }
        #expect(fromFile.specs == [.nmea(.tcp(host: "10.0.0.9", port: 10110))] && fromFile.origin == .file(file))
        let probed = try SourceSelection.resolve(environment: ["CORELOCATION_SOURCES_CONF": missing]) {
            $0 == .localhost
        }
        #expect(probed.specs == [.gpsd(.localhost)] && probed.origin == .probedLocalGPSD)
        let none = try SourceSelection.resolve(environment: ["CORELOCATION_SOURCES_CONF": missing]) { _ in false }
        #expect(none.specs.isEmpty && none.origin == .none)
    }

    /// Unconfigured, the machine's first pressure sensor joins the sources (iio:device0 is a magnetometer
    /// here, so the barometer found must be iio:device1, not simply the first device); named sources
    /// stay exactly as named.
    @Test func anUnconfiguredMachineUsesItsBarometer() throws {
        let sysfs = try FakeSysfs()
        try sysfs.write(0, "in_magn_x_raw", "12")
        try sysfs.write(1, "in_pressure_input", "101.325")
        try sysfs.write(2, "in_pressure_input", "99.0")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = [
            "CORELOCATION_SOURCES_CONF": directory.appendingPathComponent("none.conf").path,
            "CORELOCATION_SYSFS_ROOT": sysfs.root,
        ]
        let barometer = SourceSpec.barometer(BarometerSpec(device: "iio:device1"))
        let probed = try SourceSelection.resolve(environment: environment) { _ in true }
        #expect(probed.specs == [.gpsd(.localhost), barometer] && probed.origin == .probedLocalGPSD)
        let alone = try SourceSelection.resolve(environment: environment) { _ in false }
        #expect(alone.specs == [barometer] && alone.origin == .none)
        let named = try SourceSelection.resolve(commandLine: [.nmea(.stdin)], environment: environment) { _ in true }
        #expect(named.specs == [.nmea(.stdin)])
        // The spec found is one the factory makes into that sensor.
        let made = try SourceFactory.makeSource(
            barometer, environment: environment, scheduler: ManualScheduler(), logger: .init(label: "t"))
        #expect((made as? IIOBarometerSource)?.sensor.deviceName == "iio:device1")
        try sysfs.remove(1)
        #expect(SourceSelection.discoveredBarometer(environment: environment) == BarometerSpec(device: "iio:device2"))
    }

    @Test func nmeaURLsBuildNMEASources() throws {
        let made = try SourceFactory.makeSource(.nmea(.stdin), scheduler: ManualScheduler(), logger: .init(label: "t"))
        #expect(made is NMEAStreamSource)
        #expect(
            performing: {
                try SourceFactory.makeSource(
                    .nmea(.serial(path: "/dev/does-not-exist-ttyUSB9", baud: 9600)), scheduler: ManualScheduler(),
                    logger: .init(label: "t")
                )
            },
            throws: { "\($0)".contains("/dev/does-not-exist-ttyUSB9") }
        )
    }

    /// The real probe: a listening loopback socket answers, a closed port does not.
    @Test func probeFindsAListeningPort() throws {
        let listener = try LoopbackListener()
        #expect(SourceSelection.probeGPSD(GPSDEndpoint(host: "127.0.0.1", port: listener.port), timeout: 1))
        let port = listener.port
        listener.close()
        #expect(!SourceSelection.probeGPSD(GPSDEndpoint(host: "127.0.0.1", port: port), timeout: 1))
    }
}

import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// locationd started the way systemd starts it: `systemd-socket-activate` binds the socket, waits
/// for the first connection and execs locationd with the socket as fd 3 (`LISTEN_FDS=1`).
/// Self-contained (no harness): skipped where the `systemd` package is absent.
@Suite struct SocketActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"

    static var products: URL {
        let bundle = Bundle.main.bundleURL
        if FileManager.default.isExecutableFile(atPath: bundle.appendingPathComponent("locationd").path) { return bundle }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug")
    }

    /// Waits at most `timeout` seconds; kills the process and returns false when it overruns.
    static func waitForExit(_ process: ChildProcess, timeout: Double = 20) async -> Bool {
        _ = await Polling.until(timeout: timeout) { !process.isRunning }
        if process.isRunning {
            ChildProcess.kill(process)
            return false
        }
        return true
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: activator),
        "needs Debian package systemd (systemd-socket-activate)"))
    func servesOnTheSocketSystemdPassed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-sa-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/s.sock"

        let daemon = ChildProcess()
        daemon.executableURL = URL(fileURLWithPath: Self.activator)
        daemon.arguments = [
            "-l", socket, Self.products.appendingPathComponent("locationd").path,
            "--database", directory + "/d.sqlite", "--simulate", "48.8584,2.2945", "--config", "/dev/null",
        ]
        let log = directory + "/daemon.log"
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        daemon.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        // SIGKILL, and waited for: the activator inherits the test runner's blocked SIGTERM. (It closes the
        // descriptors it inherited, which under Foundation's `Process` hid every other child's exit while it
        // ran: the reason for `ChildProcess`.)
        defer { ChildProcess.kill(daemon) }
        // The activator binds the socket first thing and listens just after: the file can exist a moment
        // before a connection is accepted (refused then, as the CI met under load). Wait (bounded) for a
        // connection that is taken.
        var connected: DaemonConnection?
        _ = await Polling.until(timeout: 4) {
            connected = try? DaemonConnection.connect(path: socket, label: "activation-test", timeout: 10)
            return connected != nil
        }

        // The first connection starts locationd; its answer proves it serves on fd 3.
        let connection = try connected ?? DaemonConnection.connect(path: socket, label: "activation-test", timeout: 10)
        connection.startReading { _ in }
        let reply = try connection.request(.status)
        connection.close()
        guard case let .status(status) = reply else {
            Issue.record("no status: \(reply)")
            return
        }
        #expect(status.servicesEnabled)
        #expect(status.database == directory + "/d.sqlite")
        #expect(status.pid == daemon.processIdentifier, "the activator execs locationd in place")
        #expect(status.sources.map(\.id) == ["simulated"])

        // The activator exec'd locationd in place: SIGTERM reaches the daemon, which stops cleanly.
        kill(daemon.processIdentifier, SIGTERM)
        #expect(await Self.waitForExit(daemon), "locationd did not stop on SIGTERM")
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(logged.contains("Listening on the socket systemd passed"), "\(logged)")
        #expect(daemon.terminationStatus == 0, "\(logged)")
    }
}

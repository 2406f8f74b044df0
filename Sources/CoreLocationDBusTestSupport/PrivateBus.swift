import CoreLocationDBus
import CoreLocationGPSDTestSupport
import Foundation

/// A private `dbus-daemon` for tests (Debian `dbus`), and python-dbusmock services on it (Debian
/// `python3-dbusmock`, run with /usr/bin/python3). Nothing touches the machine's own buses.
///
/// Reused by every test that needs a bus: NetworkManager and GeoClue (network positioning), BlueZ (beacons),
/// ModemManager. `PrivateBus.isAvailable` is false when the daemon or dbusmock is missing; tests then skip.
public final class PrivateBus: @unchecked Sendable {  // safe: one owning test at a time (see below)
    // @unchecked: `mocks` is changed only by the test that owns the bus, from one task at a time (tests are
    // sequential over one PrivateBus); the daemon's Process is touched only in init and stop().
    public let address: String
    private let daemon: ChildProcess
    private let directory: ScratchDirectory
    private var mocks: [ChildProcess] = []

    public static let daemonPath = "/usr/bin/dbus-daemon"
    public static let pythonPath = "/usr/bin/python3"

    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: daemonPath)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/__init__.py")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts a daemon with the session configuration (any user may own names) on a socket in a new directory, or
    /// on `listen` when given (a D-Bus address such as `unix:abstract=NAME`).
    public init(listen: String? = nil) throws {
        // Removed by its own deinit if this init throws (which runs no deinit of ours), else by `stop()`.
        let directory = try ScratchDirectory("corelocation-bus")
        self.directory = directory
        let socket = directory.path("bus")
        let config = directory.url.appendingPathComponent("bus.conf")
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(listen ?? "unix:path=\(socket)")</listen>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try text.write(to: config, atomically: true, encoding: .utf8)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.daemonPath)
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        daemon = process
        // The daemon prints its address once it listens; read that line (bounded by the daemon's exit).
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let printed = String(data: line, encoding: .utf8)?.split(separator: "\n").first, !printed.isEmpty else {
            Self.terminate(process)
            throw Failure(description: "dbus-daemon printed no address")
        }
        address = String(printed)
    }

    deinit { stop() }

    /// A client connected to this bus.
    public func client() throws -> DBusClient { try DBusClient(bus: .address(address)) }

    /// Starts `python3 -m dbusmock ARGUMENTS` on this bus and waits (up to 10 s) until `name` is owned.
    /// `modulePath`: a `PYTHONPATH` for a python-dbusmock other than Debian's (the `modemmanager` template
    /// is only in PyPI's 0.38, which `.ci/run` installs beside the build).
    @discardableResult
    public func startMock(name: String, arguments: [String], modulePath: String? = nil) async throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.pythonPath)
        process.arguments = ["-m", "dbusmock"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        if let modulePath { environment["PYTHONPATH"] = modulePath }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        mocks.append(process)
        let client = try client()
        defer { client.close() }
        for _ in 0..<200 {
            if try await client.nameOwner(name) != nil { return process }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "dbusmock \(arguments.joined(separator: " ")) did not take \(name)")
    }

    /// Runs a Python script against this bus (for driver scripts that add devices or emit signals) and waits for it.
    /// The waiting happens on a thread of its own: a script that calls back into the test process (an exported
    /// object's handler, a `Task` in it) needs the cooperative pool this test would otherwise be blocking, and on a
    /// two-core machine the pool is two threads — the call then waits out the bus's 25 s reply timeout.
    public func runScript(_ path: String, arguments: [String] = []) async throws -> (status: Int32, output: String) {
        let address = address
        return try await Polling.onOwnThread { try Self.runScriptBlocking(path, arguments: arguments, address: address) }
    }

    private static func runScriptBlocking(
        _ path: String, arguments: [String], address: String
    ) throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.pythonPath)
        process.arguments = [path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        // The script closed its output, so it has exited or is exiting.
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Stops one mock (as `terminate`) and waits for it (at most 10 s).
    public func stopMock(_ process: ChildProcess) {
        Self.terminate(process)
    }

    /// SIGKILL (a crash, as far as the bus can tell), then waits until the child is reaped, bounded.
    /// Not SIGTERM: children spawned from a test runner's threads inherit a signal mask that can block it.
    static func terminate(_ process: ChildProcess) {
        ChildProcess.kill(process, timeout: 10)
    }

    /// Stops every mock and the daemon, and removes the socket directory.
    public func stop() {
        for mock in mocks { stopMock(mock) }
        mocks = []
        Self.terminate(daemon)
        try? FileManager.default.removeItem(at: directory.url)
    }
}

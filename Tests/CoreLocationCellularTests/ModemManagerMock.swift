import Testing
import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation

/// python-dbusmock's `modemmanager` template (PyPI python-dbusmock 0.38: Debian's 0.28 lacks it) on a private bus,
/// and the driver script that gives its modem the Location interface (Fixtures/modemmanager/driver.py).
///
/// dbusmock 0.38 is looked for in `CORELOCATION_DBUSMOCK_PATH`, else `.build/dbusmock-0.38` (where .ci/run
/// installs it with `pip install --target`); it is put on PYTHONPATH of the mock only, so the other suites keep
/// Debian's dbusmock.
final class ModemManagerMock: @unchecked Sendable {  // safe: one owning test, used from one task at a time
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/modemmanager")
    static let driver = fixtures.appendingPathComponent("driver.py").path

    static var dbusmockPath: String {
        if let path = ProcessInfo.processInfo.environment["CORELOCATION_DBUSMOCK_PATH"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/dbusmock-0.38").path
    }

    static var isAvailable: Bool {
        PrivateBus.isAvailable
            && FileManager.default.fileExists(atPath: dbusmockPath + "/dbusmock/templates/modemmanager.py")
    }

    let bus: PrivateBus
    private var process: ChildProcess?

    init(bus: PrivateBus) { self.bus = bus }

    /// Starts (or restarts: a new unique name, as when ModemManager restarts) the mock; waits until it owns the name.
    func start() async throws {
        stop()
        process = try await bus.startMock(
            name: "org.freedesktop.ModemManager1", arguments: ["--system", "-t", "modemmanager"],
            modulePath: Self.dbusmockPath)
    }

    /// SIGKILL (ModemManager crashing), waiting (bounded) for the exit.
    func stop() {
        guard let process else { return }
        ChildProcess.kill(process)
        self.process = nil
    }

    /// Runs the driver script; returns its output (the modem path for `add`).
    @discardableResult
    func drive(_ arguments: String...) async throws -> String {
        let (status, output) = try await bus.runScript(Self.driver, arguments: arguments)
        guard status == 0 else {
            throw MockFailure(description: "driver.py \(arguments.joined(separator: " ")): \(output)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit { stop() }
}

/// Waits (bounded, 20 s) until `condition` holds: for a child process and the bus, never for our own timers.
func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
    for _ in 0..<1000 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting: \(what)")
    throw MockFailure(description: "timed out waiting: \(what)")
}

struct MockFailure: Error, CustomStringConvertible {
    var description: String
}

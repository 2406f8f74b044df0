import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation

/// python-dbusmock 0.38's `modemmanager` template on a private bus, fed by the ModemManager tests' driver script
/// (Tests/CoreLocationCellularTests/Fixtures/modemmanager/driver.py), for running the built `locationctl` against
/// it (`CORELOCATION_MODEM_BUS`). dbusmock 0.38 is looked for as ModemManagerMock does: `CORELOCATION_DBUSMOCK_PATH`,
/// else `.build/dbusmock-0.38` (.ci/run installs it there). The driver and the mock run as child processes waited
/// for on threads of their own (`Browser.runProcess`), never on the cooperative pool.
final class ModemBus: @unchecked Sendable {  // safe: one owning test, used from one task at a time
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()
    static let fixtures = packageRoot.appendingPathComponent("Tests/CoreLocationCellularTests/Fixtures/modemmanager")
    static let driver = fixtures.appendingPathComponent("driver.py").path

    static var dbusmockPath: String {
        if let path = ProcessInfo.processInfo.environment["CORELOCATION_DBUSMOCK_PATH"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/dbusmock-0.38").path
    }

    static var isAvailable: Bool {
        PrivateBus.isAvailable
            && FileManager.default.fileExists(atPath: dbusmockPath + "/dbusmock/templates/modemmanager.py")
    }

    let bus: PrivateBus
    let client: DBusClient
    private var mock: ChildProcess?
    private var stopped = false

    init() throws {
        bus = try PrivateBus()
        client = try bus.client()
    }

    /// Starts the mock; waits (bounded, 10 s) until it owns ModemManager's name.
    func start() async throws {
        mock = try await bus.startMock(
            name: "org.freedesktop.ModemManager1", arguments: ["--system", "-t", "modemmanager"],
            modulePath: Self.dbusmockPath)
    }

    /// Runs the driver script (bounded, 30 s); returns its last output line (the modem path for `add`).
    @discardableResult
    func drive(_ arguments: String...) async throws -> String {
        let (status, output) = try await Browser.runProcess(
            "/usr/bin/env",
            ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", PrivateBus.pythonPath, Self.driver] + arguments, limit: 30)
        guard status == 0 else {
            throw ModemBusFailure(description: "driver.py \(arguments.joined(separator: " ")): \(output)")
        }
        return output.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// The modem's `Modem.Location` `Enabled` flags (what Setup enabled).
    func enabled(_ modem: String) async throws -> Int64? {
        let properties = try await client.properties(
            of: "org.freedesktop.ModemManager1.Modem.Location", at: modem, on: "org.freedesktop.ModemManager1")
        return properties["Enabled"]?.integer
    }

    /// Polls the modem's `Enabled` flags (20 ms apart, at most 20 s) until they are `flags`; returns the last read.
    func waitUntilEnabled(_ modem: String, _ flags: Int64) async throws -> Int64? {
        var enabled: Int64?
        for _ in 0..<1000 {
            enabled = try await self.enabled(modem)
            if enabled == flags { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return enabled
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        if let mock { ChildProcess.kill(mock) }
        mock = nil
        client.close()
        bus.stop()
    }

    deinit { stop() }
}

struct ModemBusFailure: Error, CustomStringConvertible {
    var description: String
}

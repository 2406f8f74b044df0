import CoreLocationDBusTestSupport
import Foundation
import Testing

/// A feature whose run-time part is missing says which Debian package brings it, at the moment it is asked for
/// (issue 34; docs/decisions/0058), never an errno or a library's message.
@Suite struct MissingBusTests {
    @Test func beaconsWithoutASystemBusNameDbusAndBluez() async throws {
        let sandbox = try Sandbox()
        let socket = sandbox.directory.appendingPathComponent("no-bus").path
        let run = try await sandbox.locationctl(
            "beacons", "--duration", "1", extra: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket)"])
        #expect(run.status == 69, "EX_UNAVAILABLE: \(run)")
        #expect(
            run.stderr.contains(
                "beacons: needs the system D-Bus (Debian package dbus) and BlueZ (Debian package bluez): "
                    + "no D-Bus socket at \(socket) (no bus daemon running)"), "\(run)")
        #expect(!run.stderr.contains("errno"), "\(run)")
    }

    @Test(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
    func beaconsWithABusButNoBluezNameBluez() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl(
            "beacons", "--duration", "1", extra: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(run.status == 69, "EX_UNAVAILABLE: \(run)")
        #expect(
            run.stderr.contains(
                "beacons: needs BlueZ (Debian package bluez) running on the system bus (org.bluez is not on it)"),
            "\(run)")
    }
}

import CoreLocationDBus
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Server addresses ("Server Addresses" in the specification) and what a missing bus says.
struct DBusAddressTests {
    @Test func addressesParse() throws {
        #expect(
            try DBusAddress.parse("unix:path=/run/dbus/system_bus_socket").map(\.endpoint) == [
                .path("/run/dbus/system_bus_socket")
            ])
        #expect(
            try DBusAddress.parse("unix:abstract=/tmp/dbus-XyZ,guid=0123456789abcdef").map(\.endpoint) == [
                .abstract("/tmp/dbus-XyZ")
            ], "the guid is ignored")
        let list = try DBusAddress.parse("unix:path=/tmp/a%20b%2c;;unix:abstract=x%2Fy")
        #expect(list.map(\.endpoint) == [.path("/tmp/a b,"), .abstract("x/y")], "unescaped; an empty entry skipped")
        for text in ["tcp:host=localhost,port=1234", "unix:tmpdir=/tmp", "autolaunch:"] {
            let endpoints = try DBusAddress.parse(text).map(\.endpoint)
            guard case .unsupported = try #require(endpoints.first) else {
                Issue.record("\(text) is not reported unsupported")
                continue
            }
        }
        for bad in [
            "", ";", "nocolon", "unix:path", "unix:path=/a,path=/b", "unix:path=/a%zz", "unix:path=/a,abstract=b",
        ] {
            do {
                _ = try DBusAddress.parse(bad)
                Issue.record("'\(bad)' parsed")
            } catch let error as DBusCallError {
                #expect(error.code == .connect)
                #expect(error.name == "org.freedesktop.DBus.Error.BadAddress")
            }
        }
    }

    @Test func busesComeFromTheEnvironment() throws {
        #expect(
            try DBusAddress.addresses(for: .system, environment: [:]).map(\.endpoint) == [
                .path("/var/run/dbus/system_bus_socket")
            ])
        #expect(
            try DBusAddress.addresses(
                for: .system, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/tmp/sys"]
            ).map(\.endpoint) == [.path("/tmp/sys")])
        #expect(
            try DBusAddress.addresses(
                for: .session, environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:abstract=s"]
            ).map(\.endpoint) == [.abstract("s")])
        #expect(
            try DBusAddress.addresses(for: .session, environment: ["XDG_RUNTIME_DIR": "/run/user/7"]).map(\.endpoint)
                == [
                    .path("/run/user/7/bus")
                ])
        #expect(throws: DBusCallError.self) { _ = try DBusAddress.addresses(for: .session, environment: [:]) }
        #expect(
            try DBusAddress.addresses(for: .address("unix:path=/x"), environment: [:]).map(\.endpoint) == [.path("/x")])
    }

    /// No bus: a typed error that says so in words and names the package, never an errno.
    @Test func aMissingBusSaysWhatToInstall() throws {
        let scratch = try ScratchDirectory("corelocation-nobus")
        let path = scratch.path("bus")
        do {
            _ = try DBusClient(bus: .address("unix:path=\(path)"))
            Issue.record("connected to nothing")
        } catch let error as DBusCallError {
            #expect(error.code == .connect)
            #expect(error.isBusMissing)
            #expect(error.message == "no D-Bus socket at \(path) (no bus daemon running)")
            let text = try #require(error.missingPart(service: "BlueZ", package: "bluez"))
            #expect(text.hasPrefix("needs the system D-Bus (Debian package dbus) and BlueZ (Debian package bluez): "))
            #expect(!text.contains("errno"))
        }

        // A socket file nobody listens on (a daemon that died): NoServer, also a missing bus.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        do {
            _ = try DBusClient(bus: .address("unix:path=\(path)"))
            Issue.record("connected to a socket nobody listens on")
        } catch let error as DBusCallError {
            #expect(error.isBusMissing)
            #expect(error.name == "org.freedesktop.DBus.Error.NoServer")
            #expect(error.message.contains("nothing listens at \(path)"))
        }

        let service = DBusCallError(.remote, name: "org.freedesktop.DBus.Error.ServiceUnknown", "x")
        #expect(
            service.missingPart(
                service: "NetworkManager", package: "network-manager", busName: "org.freedesktop.NetworkManager")
                == "needs NetworkManager (Debian package network-manager) running on the system bus "
                + "(org.freedesktop.NetworkManager is not on it)")
        #expect(DBusCallError(.timeout, "slow").missingPart(service: "BlueZ", package: "bluez") == nil)
    }
}

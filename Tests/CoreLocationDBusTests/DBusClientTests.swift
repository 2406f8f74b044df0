import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// The D-Bus layer against a real, private dbus-daemon and python-dbusmock services.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
struct DBusClientTests {
    static let name = "org.corelocation.Test"
    static let path = "/org/corelocation/Test"
    static let interface = "org.corelocation.Test1"
    static let mock = "org.freedesktop.DBus.Mock"

    @discardableResult
    private func startMock(_ bus: PrivateBus, objectManager: Bool = false) async throws -> ChildProcess {
        try await bus.startMock(
            name: Self.name, arguments: (objectManager ? ["-m"] : []) + [Self.name, Self.path, Self.interface])
    }

    /// dbusmock's AddMethod: a method whose Python body is `code`.
    private func addMethod(_ client: DBusClient, _ name: String, _ inSig: String, _ outSig: String, _ code: String)
        async throws
    {
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "AddMethod",
            arguments: [.string(Self.interface), .string(name), .string(inSig), .string(outSig), .string(code)])
    }

    @Test func talksToTheBusDaemon() async throws {
        let bus = try PrivateBus()
        let client = try bus.client()
        #expect(client.uniqueName.hasPrefix(":"))
        let names = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames")
        let elements = names.first?.elements ?? []
        let list = elements.compactMap { $0.string }
        #expect(list.contains("org.freedesktop.DBus"))
        #expect(list.contains(client.uniqueName))
        #expect(try await client.nameOwner(client.uniqueName) == client.uniqueName)
        #expect(try await client.nameOwner("org.corelocation.Nobody") == nil)
    }

    /// Every type goes out and comes back unchanged through a Python echo (an external encoder/decoder).
    @Test func valuesRoundTripThroughAPeer() async throws {
        let bus = try PrivateBus()
        try await startMock(bus)
        let client = try bus.client()
        let signature = "ybnqiuxtdsogav(is)a{sv}aay"
        try await addMethod(client, "Echo", signature, signature, "ret = args")
        let arguments: [DBusValue] = [
            .byte(200), .bool(true), .int16(-3), .uint16(65000), .int32(-70000), .uint32(4_000_000_000),
            .int64(-5_000_000_000), .uint64(18_000_000_000_000_000_000), .double(-12.5), .string("héllo ✓"),
            .objectPath("/org/freedesktop/NetworkManager/AccessPoint/7"), .signature("a{sv}"),
            .array(elementSignature: "v", [.variant(.int32(1)), .variant(.string("x"))]),
            .structure([.int32(42), .string("answer")]),
            .dictionary(["Strength": .byte(70), "Ssid": .array(elementSignature: "y", [.byte(0x61), .byte(0x62)])]),
            .array(elementSignature: "ay", [.array(elementSignature: "y", [])]),
        ]
        let reply = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.interface, member: "Echo", arguments: arguments)
        #expect(reply == arguments)
        let dictionary = try #require(reply[14].stringKeyed)
        #expect(dictionary["Strength"]?.integer == 70)
        #expect(dictionary["Ssid"]?.bytes == [0x61, 0x62])
    }

    @Test func remoteErrorsCarryTheirName() async throws {
        let bus = try PrivateBus()
        try await startMock(bus)
        let client = try bus.client()
        try await addMethod(client, "Fail", "", "", "raise dbus.exceptions.DBusException('no fix', name='org.corelocation.Error.NoFix')")
        do {
            _ = try await client.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Fail")
            Issue.record("Fail succeeded")
        } catch let error as DBusCallError {
            #expect(error.code == .remote)
            #expect(error.name == "org.corelocation.Error.NoFix")
            #expect(error.message.contains("no fix"))
        }
        do {
            _ = try await client.call(
                destination: "org.corelocation.Absent", path: "/", interface: Self.interface, member: "Nothing")
            Issue.record("a call to a missing service succeeded")
        } catch let error as DBusCallError {
            #expect(error.isServiceMissing)
        }
    }

    @Test func aSilentPeerTimesOut() async throws {
        let bus = try PrivateBus()
        try await startMock(bus)
        let client = try bus.client()
        try await addMethod(client, "Slow", "", "", "import time; time.sleep(3)")
        do {
            _ = try await client.call(
                destination: Self.name, path: Self.path, interface: Self.interface, member: "Slow",
                timeout: .milliseconds(300))
            Issue.record("Slow answered")
        } catch let error as DBusCallError {
            #expect(error.code == .timeout)
        }
    }

    @Test func badNamesAndValuesAreRefusedBeforeLibdbusSeesThem() async throws {
        let bus = try PrivateBus()
        let client = try bus.client()
        for (destination, path, interface, member) in [
            ("org.corelocation.Test", "not/a/path", "a.b", "M"), ("org.corelocation.Test", "/", "nodot", "M"),
            ("org.corelocation.Test", "/", "a.b", "bad-member"), ("", "/", "a.b", "M"),
        ] {
            await #expect(throws: DBusCallError.self) {
                _ = try await client.call(destination: destination, path: path, interface: interface, member: member)
            }
        }
        let badValues: [DBusValue] = [
            .objectPath("/trailing/"), .string("nul\u{0}inside"), .signature("a{"),
            .array(elementSignature: "s", [.int32(1)]), .structure([]),
            .array(elementSignature: "{vs}", [.dictEntry(.variant(.int32(1)), .string("x"))]),
        ]
        for value in badValues {
            do {
                _ = try await client.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "ListNames", arguments: [value])
                Issue.record("\(value) was sent")
            } catch let error as DBusCallError {
                #expect(error.code == .invalidArgument, "\(value)")
            }
        }
        #expect(client.isConnected)
    }

    /// Signals arrive without polling, in order, only for the subscription they match; cancelling stops them.
    @Test func signalsReachOnlyMatchingSubscriptions() async throws {
        let bus = try PrivateBus()
        try await startMock(bus)
        let client = try bus.client()
        let pings = Recorder<DBusSignal>()
        let others = Recorder<DBusSignal>()
        let ping = try await client.subscribe(DBusMatchRule(sender: Self.name, interface: Self.interface, member: "Ping")) {
            pings.append($0)
        }
        let other = try await client.subscribe(DBusMatchRule(interface: Self.interface, member: "Other")) {
            others.append($0)
        }
        func emit(_ member: String, _ text: String) async throws {
            _ = try await client.call(
                destination: Self.name, path: Self.path, interface: Self.mock, member: "EmitSignal",
                arguments: [.string(Self.interface), .string(member), .string("s"), .array(elementSignature: "v", [.variant(.string(text))])])
        }
        for index in 0..<20 { try await emit("Ping", "p\(index)") }
        try await emit("Other", "o")
        let received = try await pings.wait(for: 20, what: "20 pings")
        #expect(received.map { $0.arguments.first?.string } == (0..<20).map { "p\($0)" })
        #expect(received.allSatisfy { $0.path == Self.path && $0.sender?.hasPrefix(":") == true })
        try await others.wait(for: 1, what: "Other")
        ping.cancel()
        other.cancel()
        try await emit("Ping", "late")
        let after = Recorder<DBusSignal>()
        let probe = try await client.subscribe(DBusMatchRule(interface: Self.interface, member: "Ping")) { after.append($0) }
        try await emit("Ping", "probe")
        try await after.wait(for: 1, what: "the probe")
        probe.cancel()
        #expect(pings.values.count == 20)
        #expect(others.values.count == 1)
    }

    @Test func propertiesAndPropertiesChanged() async throws {
        let bus = try PrivateBus()
        try await startMock(bus)
        let client = try bus.client()
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "AddProperty",
            arguments: [.string(Self.interface), .string("Strength"), .variant(.byte(40))])
        #expect(try await client.property("Strength", of: Self.interface, at: Self.path, on: Self.name) == .byte(40))
        let changes = Recorder<[String: DBusValue]>()
        let watch = try await client.watchProperties(sender: Self.name, interface: Self.interface, pathNamespace: "/org") {
            path, changed, _ in
            if path == Self.path { changes.append(changed) }
        }
        try await client.setProperty("Strength", of: Self.interface, at: Self.path, on: Self.name, to: .byte(77))
        let changed = try await changes.wait(for: 1, what: "PropertiesChanged")
        #expect(changed[0]["Strength"]?.integer == 77)
        let all = try await client.properties(of: Self.interface, at: Self.path, on: Self.name)
        #expect(all["Strength"]?.integer == 77)
        watch.cancel()
    }

    @Test func objectManagerAddsAndRemoves() async throws {
        let bus = try PrivateBus()
        try await startMock(bus, objectManager: true)
        let client = try bus.client()
        let added = Recorder<String>()
        let removed = Recorder<String>()
        let watches = try await client.watchObjects(sender: Self.name, managerPath: Self.path) { path, interfaces in
            if interfaces["org.corelocation.Device1"]?["Name"]?.string == "dev0" { added.append(path) }
        } removed: { path, interfaces in
            if interfaces.contains("org.corelocation.Device1") { removed.append(path) }
        }
        let device = Self.path + "/dev0"
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "AddObject",
            arguments: [
                .objectPath(device), .string("org.corelocation.Device1"), .dictionary(["Name": .string("dev0")]),
                .array(elementSignature: "(ssss)", []),
            ])
        // dbusmock leaves InterfacesAdded to the caller (AddInterface may follow AddObject): emit it as a service does.
        let interfaces = DBusValue.array(
            elementSignature: "{sa{sv}}",
            [.dictEntry(.string("org.corelocation.Device1"), .dictionary(["Name": .string("dev0")]))])
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "EmitSignal",
            arguments: [
                .string(DBusClient.objectManagerInterface), .string("InterfacesAdded"), .string("oa{sa{sv}}"),
                .array(elementSignature: "v", [.variant(.objectPath(device)), .variant(interfaces)]),
            ])
        #expect(try await added.wait(for: 1, what: "InterfacesAdded") == [device])
        let objects = try await client.managedObjects(at: Self.path, on: Self.name)
        #expect(objects[device]?["org.corelocation.Device1"]?["Name"]?.string == "dev0")
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "RemoveObject",
            arguments: [.objectPath(device)])
        _ = try await client.call(
            destination: Self.name, path: Self.path, interface: Self.mock, member: "EmitSignal",
            arguments: [
                .string(DBusClient.objectManagerInterface), .string("InterfacesRemoved"), .string("oas"),
                .array(elementSignature: "v", [.variant(.objectPath(device)), .variant(.strings(["org.corelocation.Device1"]))]),
            ])
        #expect(try await removed.wait(for: 1, what: "InterfacesRemoved") == [device])
        for watch in watches { watch.cancel() }
    }

    /// A service that stops and starts again is seen as gone, then back under a new unique name.
    @Test func aRestartingServiceIsFollowed() async throws {
        let bus = try PrivateBus()
        let first = try await startMock(bus)
        let client = try bus.client()
        let owners = Recorder<String?>()
        let watch = try await client.watchNameOwner(Self.name) { owners.append($0) }
        let initial = try await owners.wait(for: 1, what: "the first owner")
        let firstOwner = try #require(initial[0])
        bus.stopMock(first)
        _ = try await owners.wait(for: 2, what: "the owner leaving")
        try await startMock(bus)
        let seen = try await owners.wait(for: 3, what: "the new owner")
        #expect(seen[1] == nil)
        let newOwner = try #require(seen[2])
        #expect(newOwner != firstOwner)
        watch.cancel()
    }

    @Test func theBusGoingAwayIsReported() async throws {
        let bus = try PrivateBus()
        let client = try bus.client()
        let lost = Recorder<Bool>()
        client.onDisconnect { lost.append(true) }
        bus.stop()
        try await lost.wait(for: 1, what: "Disconnected")
        #expect(!client.isConnected)
        do {
            _ = try await client.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListNames")
            Issue.record("a call on a lost connection succeeded")
        } catch let error as DBusCallError {
            #expect(error.code == .disconnected)
        }
    }
}

import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationGPSDTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a service on this layer needs (the GeoClue2 service locationd will run): owning a name, objects with
/// properties others read and write, signals to everyone or to one peer, knowing who calls — checked against a
/// real dbus-daemon, GLib and dbus-python peers, and a second client of ours.
@Suite(
    .enabled(if: PrivateBus.isAvailable && GLibPeer.isAvailable,
        "needs Debian packages dbus, python3-dbusmock and python3-gi"))
struct DBusServiceTests {
    static let interface = "org.corelocation.Calc1"

    @Test func aNameIsOwnedQueuedAndReleased() async throws {
        let bus = try PrivateBus()
        let first = try bus.client()
        let second = try bus.client()
        let name = "org.corelocation.Service1"
        #expect(try await first.requestName(name) == .primaryOwner)
        #expect(try await first.nameOwner(name) == first.uniqueName)
        #expect(try await first.requestName(name) == .alreadyOwner)
        #expect(try await second.requestName(name, flags: .doNotQueue) == .exists)
        #expect(try await second.requestName(name) == .inQueue)
        #expect(try await first.releaseName(name) == .released)
        #expect(try await first.nameOwner(name) == second.uniqueName, "the queue's next takes it")
        #expect(try await first.releaseName(name) == .notOwner)
        #expect(try await first.releaseName("org.corelocation.Nobody") == .nonExistent)
        await #expect(throws: DBusCallError.self) { _ = try await first.requestName(":1.5") }
    }

    /// A broadcast reaches every subscriber; a signal with a destination only that connection, though both match.
    @Test func signalsGoToEveryoneOrToOne() async throws {
        let bus = try PrivateBus()
        let emitter = try bus.client()
        let left = try bus.client()
        let right = try bus.client()
        let rule = DBusMatchRule(sender: emitter.uniqueName, interface: "org.corelocation.Test1")
        let heardLeft = Recorder<String>()
        let heardRight = Recorder<String>()
        let leftWatch = try await left.subscribe(rule) { heardLeft.append($0.member) }
        let rightWatch = try await right.subscribe(rule) { heardRight.append($0.member) }
        defer {
            leftWatch.cancel()
            rightWatch.cancel()
        }
        try emitter.emitSignal(
            path: "/org/corelocation/Test", interface: "org.corelocation.Test1", member: "ToLeft",
            destination: left.uniqueName)
        try emitter.emitSignal(path: "/org/corelocation/Test", interface: "org.corelocation.Test1", member: "ToAll")
        #expect(try await heardLeft.wait(for: 2, what: "both signals on the left") == ["ToLeft", "ToAll"])
        #expect(try await heardRight.wait(for: 1, what: "the broadcast on the right") == ["ToAll"])
        #expect(heardRight.values == ["ToAll"], "the directed signal went to the left only")
        #expect(throws: DBusCallError.self) {
            try emitter.emitSignal(
                path: "/org/corelocation/Test", interface: "org.corelocation.Test1", member: "X",
                destination: "not a name")
        }
    }

    /// GLib reads what we emit as the values we meant (GVariant's text form, types included), both broadcast and
    /// directed to it.
    @Test func glibReadsOurSignals() async throws {
        let bus = try PrivateBus()
        let emitter = try bus.client()
        let peer = try GLibPeer(bus, ["listen", emitter.uniqueName, "2"])
        let ready = try #require(await peer.firstLine())
        let peerName = String(try #require(ready.split(separator: " ").last))
        try emitter.emitSignal(
            path: "/org/corelocation/Test", interface: "org.corelocation.Test1", member: "Values",
            arguments: [
                .byte(200), .bool(true), .int16(-3), .uint64(18_000_000_000_000_000_000), .double(-12.5),
                .string("héllo ✓"), .objectPath("/a/b"), .signature("a{sv}"), .variant(.int32(1)),
                .structure([.int32(42), .string("answer")]),
                .dictionary(["Ssid": .array(elementSignature: "y", [.byte(0x61), .byte(0x62)])]),
                .array(elementSignature: "x", []),
            ])
        try emitter.emitPropertiesChanged(
            path: "/org/corelocation/Test", interface: "org.corelocation.Test1", changed: ["Active": .bool(true)],
            destination: peerName)
        let lines = await peer.rest().split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "Values /org/corelocation/Test (byte 0xc8, true, int16 -3, uint64 18000000000000000000, -12.5, "
                    + "'héllo ✓', objectpath '/a/b', signature 'a{sv}', <1>, (42, 'answer'), "
                    + "{'Ssid': <[byte 0x61, 0x62]>}, @ax [])",
                "PropertiesChanged /org/corelocation/Test ('org.corelocation.Test1', {'Active': <true>}, @as [])",
            ])
    }

    /// GLib sends big-endian when asked: a call to our export and a signal to us both arrive as the values sent,
    /// and our (little-endian) reply reads back in GLib the same.
    @Test func bigEndianPeersAreUnderstood() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let export = try server.export(path: "/org/corelocation/Exported") { call in
            .reply(call.arguments)
        }
        defer { export.cancel() }
        let signals = Recorder<DBusSignal>()
        let watch = try await server.subscribe(DBusMatchRule(interface: "org.corelocation.BE1")) { signals.append($0) }
        defer { watch.cancel() }
        let peer = try GLibPeer(bus, ["big-endian", server.uniqueName, "/org/corelocation/Exported"])
        let output = await peer.rest()
        #expect(
            output == """
                reply little-endian ('grüß', [int64 1, -2, 1099511627776], {'k': <uint16 513>}, 0.10000000000000001)
                sent

                """, "GLib reads our reply as the values it sent")
        let signal = try #require(try await signals.wait(for: 1, what: "the big-endian signal").first)
        #expect(signal.arguments == [.string("big"), .array(elementSignature: "y", [.byte(1), .byte(2)])])
        #expect(signal.member == "Hello")
    }

    /// The bus's view of a caller, asked from a handler that answers later: the pid and uid a dbus-python caller
    /// has, and the credentials that say the same.
    @Test func aHandlerLearnsWhoCallsBeforeItAnswers() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let export = try server.export(
            path: "/org/corelocation/Exported",
            answering: { call, replier in
                guard let sender = call.sender else {
                    return replier.send(.error(name: "org.corelocation.Error.NoSender", message: ""))
                }
                Task {
                    do {
                        let pid = try await server.connectionUnixProcessID(of: sender)
                        let uid = try await server.connectionUnixUser(of: sender)
                        let credentials = try await server.connectionCredentials(of: sender)
                        replier.send(
                            .reply([
                                .uint32(pid), .uint32(uid), .uint32(credentials.processID ?? 0),
                                .uint32(credentials.userID ?? 0),
                            ]))
                    } catch {
                        replier.send(.error(name: "org.corelocation.Error.Lookup", message: "\(error)"))
                    }
                }
            })
        defer { export.cancel() }
        let script = """
            import os, sys, dbus
            bus = dbus.SystemBus()
            proxy = bus.get_object(sys.argv[1], '/org/corelocation/Exported', introspect=False)
            reply = proxy.get_dbus_method('Who', 'org.corelocation.Calc1')(timeout=120)
            print(os.getpid(), os.getuid(), ' '.join(str(int(v)) for v in reply))
            """
        let result = try await bus.runScript("-c", arguments: [script, server.uniqueName])
        #expect(result.status == 0, "\(result.output)")
        let numbers = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(numbers.count == 6, "\(result.output)")
        #expect(numbers[2] == numbers[0], "GetConnectionUnixProcessID is the caller's pid")
        #expect(numbers[3] == numbers[1], "GetConnectionUnixUser is the caller's uid")
        #expect(numbers[4] == numbers[0] && numbers[5] == numbers[1], "GetConnectionCredentials says the same")
        #expect(numbers[1] == Int(getuid()))
    }

    /// A replier dropped without an answer fails the call at once rather than leaving the caller to time out.
    @Test func aForgottenCallFailsAtOnce() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let export = try server.export(path: "/org/corelocation/Exported", answering: { _, _ in })
        defer { export.cancel() }
        let caller = try bus.client()
        do {
            _ = try await caller.call(
                destination: server.uniqueName, path: "/org/corelocation/Exported", interface: Self.interface,
                member: "Anything", timeout: .seconds(20))
            Issue.record("answered")
        } catch let error as DBusCallError {
            #expect(error.code == .remote)
            #expect(error.name == DBusMethodResult.failedName)
        }
    }

    /// Objects with properties a peer reads, writes (through the exporter's check) and hears change; objects that
    /// come and go announced by the ObjectManager.
    @Test func anObjectStoreServesGetSetAndPropertiesChanged() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let root = "/org/corelocation/Service"
        let client = root + "/Client/1"
        let store = DBusObjectStore(
            root: root,
            objects: [
                client: [
                    "org.corelocation.Client1": [
                        "DistanceThreshold": .uint32(0), "Active": .bool(false), "DesktopId": .string(""),
                    ]
                ]
            ])
        let writes = Recorder<DBusPropertyWrite>()
        let export = try server.export(
            store,
            methods: { call in
                call.member == "Start" ? .empty : .unknownMethod(call)
            },
            setProperty: { write in
                writes.append(write)
                if write.name == "Active" {
                    return .error(name: DBusMethodResult.propertyReadOnlyName, message: "Active is read-only")
                }
                return .empty
            })
        defer { export.cancel() }
        let watcher = try bus.client()
        let changes = Recorder<[String: DBusValue]>()
        let watch = try await watcher.watchProperties(
            sender: server.uniqueName, interface: "org.corelocation.Client1", pathNamespace: root
        ) { _, changed, _ in changes.append(changed) }
        defer { watch.cancel() }

        let script = """
            import sys, dbus
            bus = dbus.SystemBus()
            props = dbus.Interface(bus.get_object(sys.argv[1], sys.argv[2], introspect=False), dbus.PROPERTIES_IFACE)
            def show(what, f):
                try:
                    print(what, f())
                except dbus.exceptions.DBusException as error:
                    print(what, 'error', error.get_dbus_name())
            client = 'org.corelocation.Client1'
            # Properties.Set takes a variant: variant_level=1 sends one, as GLib and sd-bus callers do.
            show('get', lambda: int(props.Get(client, 'DistanceThreshold')))
            show('set', lambda: props.Set(client, 'DistanceThreshold', dbus.UInt32(50, variant_level=1)))
            show('after', lambda: int(props.Get(client, 'DistanceThreshold')))
            show('readonly', lambda: props.Set(client, 'Active', dbus.Boolean(True, variant_level=1)))
            show('wrongtype', lambda: props.Set(client, 'DistanceThreshold', dbus.String('far', variant_level=1)))
            show('missing', lambda: props.Set(client, 'Nope', dbus.Int32(1, variant_level=1)))
            show('novariant', lambda: props.Set(client, 'DistanceThreshold', dbus.UInt32(5)))
            show('all', lambda: sorted((str(k), str(v)) for k, v in props.GetAll(client).items()))
            """
        let result = try await bus.runScript("-c", arguments: [script, server.uniqueName, client])
        #expect(
            result.output.split(separator: "\n").map(String.init) == [
                "get 0", "set None", "after 50", "readonly error org.freedesktop.DBus.Error.PropertyReadOnly",
                "wrongtype error org.freedesktop.DBus.Error.InvalidArgs",
                "missing error org.freedesktop.DBus.Error.UnknownProperty",
                "novariant error org.freedesktop.DBus.Error.InvalidArgs",
                "all [('Active', '0'), ('DesktopId', ''), ('DistanceThreshold', '50')]",
            ], "\(result.output)")
        #expect(writes.values.map(\.name) == ["DistanceThreshold", "Active"], "only well-typed writes reach the check")
        #expect(writes.values.first?.call.sender?.hasPrefix(":") == true)
        #expect(
            try await changes.wait(for: 1, what: "the accepted write") == [["DistanceThreshold": .variant(.uint32(50))]]
        )

        try store.update(
            client, interface: "org.corelocation.Client1", ["Active": .bool(true), "DesktopId": .string("")])
        let afterUpdate = try await changes.wait(for: 2, what: "the update")
        #expect(afterUpdate[1] == ["Active": .variant(.bool(true))], "only what changed is announced")
        #expect(store.value("Active", of: "org.corelocation.Client1", at: client) == .bool(true))
        #expect(throws: DBusCallError.self) {
            try store.update(root + "/Nobody", interface: "org.corelocation.Client1", [:])
        }

        let added = Recorder<String>()
        let removed = Recorder<String>()
        let objectWatches = try await watcher.watchObjects(sender: server.uniqueName, managerPath: root) { path, _ in
            added.append(path)
        } removed: { path, _ in
            removed.append(path)
        }
        defer { for watch in objectWatches { watch.cancel() } }
        let location = root + "/Location/1"
        try store.add(location, interfaces: ["org.corelocation.Location1": ["Latitude": .double(46.05)]])
        #expect(try await added.wait(for: 1, what: "InterfacesAdded") == [location])
        let objects = try await watcher.managedObjects(at: root, on: server.uniqueName)
        #expect(objects[location]?["org.corelocation.Location1"]?["Latitude"]?.double == 46.05)
        try store.remove(location)
        #expect(try await removed.wait(for: 1, what: "InterfacesRemoved") == [location])
        #expect(throws: DBusCallError.self) { try store.add("/elsewhere", interfaces: [:]) }
    }

    /// An object with an audience is that peer's alone: another peer neither reads it (UnknownObject, as if it were
    /// not there) nor finds it in GetManagedObjects, and its PropertiesChanged reaches its peer only.
    @Test func anObjectWithAnAudienceIsItsPeersAlone() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let owner = try bus.client()
        let other = try bus.client()
        let root = "/org/corelocation/Service"
        let mine = root + "/Client/1"
        let store = DBusObjectStore(root: root)
        let export = try server.export(store)
        defer { export.cancel() }
        try store.add(mine, interfaces: ["org.corelocation.Client1": ["Active": .bool(false)]], audience: owner.uniqueName)
        try store.add(root + "/Shared", interfaces: ["org.corelocation.Client1": ["Active": .bool(false)]])
        #expect(
            try await owner.property("Active", of: "org.corelocation.Client1", at: mine, on: server.uniqueName)
                == .bool(false))
        await #expect {
            _ = try await other.property("Active", of: "org.corelocation.Client1", at: mine, on: server.uniqueName)
        } throws: { ($0 as? DBusCallError)?.name == DBusMethodResult.unknownObjectName }
        #expect(try await other.managedObjects(at: root, on: server.uniqueName).keys.sorted() == [root + "/Shared"])
        #expect(
            try await owner.managedObjects(at: root, on: server.uniqueName).keys.sorted() == [mine, root + "/Shared"])

        let heardByOwner = Recorder<[String: DBusValue]>()
        let heardByOther = Recorder<String>()
        let watches = [
            try await owner.watchProperties(
                sender: server.uniqueName, interface: "org.corelocation.Client1", pathNamespace: root
            ) { _, changed, _ in heardByOwner.append(changed) },
            try await other.watchProperties(
                sender: server.uniqueName, interface: "org.corelocation.Client1", pathNamespace: root
            ) { path, _, _ in heardByOther.append(path) },
        ]
        defer { for watch in watches { watch.cancel() } }
        try store.update(mine, interface: "org.corelocation.Client1", ["Active": .bool(true)])
        // A change of the shared object after it: once the other peer hears that, it would have heard the first.
        try store.update(root + "/Shared", interface: "org.corelocation.Client1", ["Active": .bool(true)])
        #expect(try await heardByOwner.wait(for: 2, what: "both changes") == [
            ["Active": .variant(.bool(true))], ["Active": .variant(.bool(true))],
        ])
        // In order from one sender: had the private change reached the other peer, it would be its first.
        #expect(try await heardByOther.wait(for: 1, what: "the shared change") == [root + "/Shared"])
    }

    /// A peer that leaves is seen leaving: its unique name loses its owner.
    @Test func aCallerLeavingIsSeen() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let caller = try bus.client()
        let callerName = caller.uniqueName
        let gone = Recorder<String>()
        let watch = try await server.watchNameOwnerChanges { name, old, new in
            if name == callerName, old == callerName, new == nil { gone.append(name) }
        }
        defer { watch.cancel() }
        caller.close()
        #expect(try await gone.wait(for: 1, what: "the caller leaving") == [callerName])
    }

    /// `org.freedesktop.DBus.Peer` is answered on any path, as libdbus answered it.
    @Test func peerPingAndMachineID() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let caller = try bus.client()
        _ = try await caller.call(
            destination: server.uniqueName, path: "/any/path", interface: "org.freedesktop.DBus.Peer", member: "Ping")
        let reply = try await caller.call(
            destination: server.uniqueName, path: "/", interface: "org.freedesktop.DBus.Peer", member: "GetMachineId")
        let expected = try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)
        if let expected {
            #expect(reply.first?.string == expected.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(reply.first?.string?.count == 32)
    }

    /// Linux's abstract socket namespace, and an address list whose first entry does not exist.
    @Test func abstractAddressesAndAddressLists() async throws {
        let name = "corelocation-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let bus = try PrivateBus(listen: "unix:abstract=\(name)")
        #expect(bus.address.hasPrefix("unix:abstract=\(name),guid="))
        let client = try DBusClient(bus: .address("unix:path=/nonexistent/corelocation/bus;" + bus.address))
        #expect(client.uniqueName.hasPrefix(":"))
        #expect(try await client.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
        client.close()
    }
}

/// Tests/CoreLocationDBusTests/Peers/glib_peer.py on a private bus, its output read as it comes.
struct GLibPeer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers/glib_peer.py").path

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
    }

    let process: ChildProcess
    let output: FileHandle

    init(_ bus: PrivateBus, _ arguments: [String]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: PrivateBus.pythonPath)
        process.arguments = [Self.script, bus.address] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        self.process = process
        output = pipe.fileHandleForReading
    }

    func firstLine() async -> String? {
        await ChildProcess.firstLine(of: output)?.trimmingCharacters(in: .newlines)
    }

    /// Everything else it prints, once it exits (it exits by itself within 120 s). Read on a thread of its own, not
    /// on one of the cooperative pool's threads that the test's own D-Bus tasks need meanwhile.
    func rest() async -> String {
        let output = output
        let process = process
        return (try? await Polling.onOwnThread {
            let data = output.readDataToEndOfFile()
            _ = process.waitUntilExit(timeout: 130)
            return String(decoding: data, as: UTF8.self)
        }) ?? ""
    }
}

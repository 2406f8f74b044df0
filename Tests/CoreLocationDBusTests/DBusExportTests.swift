import CoreLocationDBus
import CoreLocationDBusTestSupport
import Foundation
import Testing

/// Exported objects answering calls from other peers: a Python (dbus-python) caller and another DBusClient.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs Debian packages dbus and python3-dbusmock"))
struct DBusExportTests {
    static let path = "/org/corelocation/Exported"
    static let interface = "org.corelocation.Calc1"

    /// Runs a dbus-python snippet on the bus (`sys.argv[1:]` are `arguments`); returns its output.
    private func python(_ bus: PrivateBus, _ code: String, _ arguments: [String]) async throws -> String {
        let script = "import sys, dbus\nbus = dbus.SystemBus()\n" + code
        let result = try await bus.runScript("-c", arguments: [script] + arguments)
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    /// Calls `member` with int32 arguments from Python; prints the reply or the error's name and message.
    private static let callScript = """
        proxy = bus.get_object(sys.argv[1], sys.argv[2], introspect=False)
        try:
            reply = proxy.get_dbus_method(sys.argv[4], sys.argv[3])(*[dbus.Int32(int(a)) for a in sys.argv[5:]], timeout=120)
            print('reply', reply)
        except dbus.exceptions.DBusException as error:
            print('error', error.get_dbus_name(), error.get_dbus_message())
        """

    private func calculator(_ calls: Recorder<DBusMethodCall>) -> @Sendable (DBusMethodCall) -> DBusMethodResult {
        { call in
            calls.append(call)
            switch (call.interface, call.member) {
            case (Self.interface, "Add"):
                let sum = call.arguments.compactMap(\.integer).reduce(0, +)
                return .reply([.int32(Int32(truncatingIfNeeded: sum))])
            case (Self.interface, "Divide"):
                return .error(name: "org.corelocation.Error.DivideByZero", message: "no dividing by zero")
            case (Self.interface, "Bad"):
                return .error(name: "not an error name", message: "oops")
            default:
                return .unknownMethod(call)
            }
        }
    }

    @Test func aPeerCallsAnExportedMethod() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let calls = Recorder<DBusMethodCall>()
        let export = try server.export(path: Self.path, calculator(calls))
        let name = server.uniqueName

        #expect(try await python(bus, Self.callScript, [name, Self.path, Self.interface, "Add", "40", "2"]) == "reply 42\n")
        #expect(calls.values.count == 1)
        #expect(calls.values.first?.arguments == [.int32(40), .int32(2)])
        #expect(calls.values.first?.path == Self.path)
        #expect(calls.values.first?.sender?.hasPrefix(":") == true)
        #expect(calls.values.first?.sender != name)
        #expect(calls.values.first?.expectsReply == true)

        let divided = try await python(bus, Self.callScript, [name, Self.path, Self.interface, "Divide", "1", "0"])
        #expect(divided == "error org.corelocation.Error.DivideByZero no dividing by zero\n")
        let unknown = try await python(bus, Self.callScript, [name, Self.path, Self.interface, "Multiply", "2"])
        #expect(unknown.hasPrefix("error org.freedesktop.DBus.Error.UnknownMethod no method \(Self.interface).Multiply"))
        let bad = try await python(bus, Self.callScript, [name, Self.path, Self.interface, "Bad"])
        #expect(bad == "error org.freedesktop.DBus.Error.Failed oops\n", "an invalid error name becomes Failed")

        // Not a subtree: a path below is not ours.
        let below = try await python(bus, Self.callScript, [name, Self.path + "/child", Self.interface, "Add", "1"])
        #expect(below.hasPrefix("error org.freedesktop.DBus.Error.UnknownMethod"), "\(below)")
        #expect(calls.values.count == 4)

        export.cancel()
        let gone = try await python(bus, Self.callScript, [name, Self.path, Self.interface, "Add", "1", "1"])
        #expect(gone.hasPrefix("error org.freedesktop.DBus.Error.UnknownMethod"), "\(gone)")
        #expect(calls.values.count == 4, "a cancelled export hears nothing")
        server.close()
    }

    @Test func valuesRoundTripBetweenTwoClients() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let export = try server.export(path: Self.path, subtree: true) { call in
            call.member == "Echo" ? .reply(call.arguments + [.objectPath(call.path)]) : .unknownMethod(call)
        }
        defer { export.cancel() }
        let caller = try bus.client()
        let arguments: [DBusValue] = [
            .dictionary(["Strength": .byte(70), "Name": .string("héllo")]),
            .array(elementSignature: "(yyay)", [.structure([.byte(2), .byte(0xFF), .array(elementSignature: "y", [.byte(0xBE)])])]),
            .uint64(18_000_000_000_000_000_000),
        ]
        let reply = try await caller.call(
            destination: server.uniqueName, path: Self.path + "/deep/child", interface: Self.interface,
            member: "Echo", arguments: arguments)
        #expect(reply == arguments + [.objectPath(Self.path + "/deep/child")], "a subtree export answers below")
        await #expect(throws: DBusCallError.self) {
            _ = try await caller.call(
                destination: server.uniqueName, path: "/org/corelocation/Elsewhere", interface: Self.interface,
                member: "Echo")
        }
    }

    @Test func aPathIsExportedOnce() throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let first = try server.export(path: Self.path) { _ in .empty }
        defer { first.cancel() }
        do {
            _ = try server.export(path: Self.path) { _ in .empty }
            Issue.record("the second export succeeded")
        } catch let error as DBusCallError {
            #expect(error.code == .invalidArgument)
            #expect(error.name == "org.freedesktop.DBus.Error.ObjectPathInUse")
        }
        #expect(throws: DBusCallError.self) { _ = try server.export(path: "not/a/path") { _ in .empty } }
    }

    /// An ObjectManager tree read the way BlueZ reads an application's: GetManagedObjects at the root, then
    /// Properties on an object; other calls reach the handler, unknown objects and interfaces are refused.
    @Test func anObjectTreeAnswersObjectManagerAndProperties() async throws {
        let bus = try PrivateBus()
        let server = try bus.client()
        let root = "/org/corelocation/app"
        let tree = DBusObjectTree(
            root: root,
            objects: [
                root + "/monitor0": [
                    "org.example.Monitor1": [
                        "Type": .string("or_patterns"),
                        "Patterns": .array(
                            elementSignature: "(yyay)",
                            [.structure([.byte(0), .byte(0xFF), .array(elementSignature: "y", [.byte(0x4C), .byte(0)])])]),
                    ]
                ]
            ])
        let calls = Recorder<DBusMethodCall>()
        let export = try server.export(tree) { call in
            calls.append(call)
            return call.member == "Activate" ? .empty : .unknownMethod(call)
        }
        defer { export.cancel() }
        let script = """
            name, root = sys.argv[1], sys.argv[2]
            def show(what, f):
                try:
                    print(what, f())
                except dbus.exceptions.DBusException as error:
                    print(what, 'error', error.get_dbus_name())
            manager = dbus.Interface(bus.get_object(name, root, introspect=False), 'org.freedesktop.DBus.ObjectManager')
            objects = manager.GetManagedObjects()
            for path in sorted(objects):
                for interface in sorted(objects[path]):
                    props = objects[path][interface]
                    patterns = [(int(s), int(t), bytes(int(b) for b in c).hex()) for s, t, c in props['Patterns']]
                    print('object', path, interface, props['Type'], patterns)
            child = bus.get_object(name, root + '/monitor0', introspect=False)
            props = dbus.Interface(child, dbus.PROPERTIES_IFACE)
            show('get', lambda: props.Get('org.example.Monitor1', 'Type'))
            show('getall', lambda: sorted(props.GetAll('org.example.Monitor1').keys()))
            show('set', lambda: props.Set('org.example.Monitor1', 'Type', 'x'))
            show('missing', lambda: props.Get('org.example.Monitor1', 'Nope'))
            show('interface', lambda: props.GetAll('org.example.Other1'))
            show('activate', lambda: dbus.Interface(child, 'org.example.Monitor1').Activate())
            show('other', lambda: dbus.Interface(child, 'org.example.Other1').Activate())
            show('nobody', lambda: dbus.Interface(bus.get_object(name, root + '/nobody', introspect=False), 'org.example.Monitor1').Activate())
            """
        let output = try await python(bus, script, [server.uniqueName, root])
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines == [
            "object \(root)/monitor0 org.example.Monitor1 or_patterns [(0, 255, '4c00')]",
            "get or_patterns",
            "getall [dbus.String('Patterns'), dbus.String('Type')]",
            "set error org.freedesktop.DBus.Error.PropertyReadOnly",
            "missing error org.freedesktop.DBus.Error.UnknownProperty",
            "interface error org.freedesktop.DBus.Error.UnknownInterface",
            "activate None",
            "other error org.freedesktop.DBus.Error.UnknownInterface",
            "nobody error org.freedesktop.DBus.Error.UnknownObject",
        ], "\(output)")
        #expect(calls.values.map(\.member) == ["Activate"], "only the application's own method reaches it")
    }

    /// The tree's answers without a bus.
    @Test func theTreeAnswersWithoutABus() {
        let tree = DBusObjectTree(root: "/a", objects: ["/a": ["i.R": ["P": .int32(1)]], "/a/b": ["i.X": [:]], "/ab": [:]])
        #expect(tree.managedObjects.keys.sorted() == ["/a/b"], "the root and a path that only shares a prefix are not listed")
        let get = DBusMethodCall(path: "/a", interface: DBusClient.propertiesInterface, member: "Get",
            arguments: [.string("i.R"), .string("P")])
        #expect(tree.answer(get) == .reply([.variant(.int32(1))]))
        let own = DBusMethodCall(path: "/a/b", interface: "i.X", member: "Do")
        #expect(tree.answer(own) == nil, "the application's call")
        let noInterface = DBusMethodCall(path: "/a/b", interface: nil, member: "Do")
        #expect(tree.answer(noInterface) == nil)
        let managerBelow = DBusMethodCall(path: "/a/b", interface: DBusClient.objectManagerInterface, member: "GetManagedObjects")
        #expect(tree.answer(managerBelow) == .error(
            name: DBusMethodResult.unknownInterfaceName, message: "no interface \(DBusClient.objectManagerInterface) at /a/b"))
    }
}

/// A fixed set of objects under one root, answering the standard interfaces a peer uses to read them:
/// `org.freedesktop.DBus.ObjectManager.GetManagedObjects` at the root, and `org.freedesktop.DBus.Properties`
/// (`Get`, `GetAll`; `Set` refused, every property is read-only) on each object.
///
/// This is what a service that takes "the root of a hierarchy of objects" needs (BlueZ's advertisement
/// monitors, GATT applications, advertisements): export it with `DBusClient.export(_:methods:)`, which routes
/// every other call to the application's handler. The set does not change while exported (no
/// `InterfacesAdded`); to change it, cancel the export and export the new tree. `Introspectable` is not
/// answered.
public struct DBusObjectTree: Sendable, Hashable {
    /// The ObjectManager's path (`/org/example/app`).
    public var root: String
    /// Object path → interface → property → value (values without a variant: one is added on the wire).
    public var objects: [String: [String: [String: DBusValue]]]

    public init(root: String, objects: [String: [String: [String: DBusValue]]]) {
        self.root = root
        self.objects = objects
    }

    /// The objects GetManagedObjects lists: those strictly below the root (the specification's rule).
    public var managedObjects: [String: [String: [String: DBusValue]]] {
        let prefix = root == "/" ? "/" : root + "/"
        return objects.filter { $0.key.hasPrefix(prefix) && $0.key != root }
    }

    /// The answer to a call of a standard interface, an unknown object's or interface's error, or nil: the call
    /// is for the application (its object has the interface the call names, or the call names none).
    public func answer(_ call: DBusMethodCall) -> DBusMethodResult? {
        let interfaces = objects[call.path]
        switch call.interface {
        case DBusClient.objectManagerInterface where call.path == root:
            guard call.member == "GetManagedObjects" else { return .unknownMethod(call) }
            return .reply([Self.encode(managedObjects)])
        case DBusClient.propertiesInterface:
            guard let interfaces else { return unknownObject(call) }
            return properties(call, interfaces)
        default:
            guard let interfaces else { return unknownObject(call) }
            if let interface = call.interface, interfaces[interface] == nil {
                return .error(
                    name: DBusMethodResult.unknownInterfaceName, message: "no interface \(interface) at \(call.path)")
            }
            return nil
        }
    }

    private func unknownObject(_ call: DBusMethodCall) -> DBusMethodResult {
        .error(name: DBusMethodResult.unknownObjectName, message: "no object at \(call.path)")
    }

    private func properties(_ call: DBusMethodCall, _ interfaces: [String: [String: DBusValue]]) -> DBusMethodResult {
        let arguments = call.arguments
        guard let interface = arguments.first?.string else {
            return .error(name: DBusMethodResult.invalidArgsName, message: "\(call.name) needs an interface name")
        }
        guard let properties = interfaces[interface] else {
            return .error(
                name: DBusMethodResult.unknownInterfaceName, message: "no interface \(interface) at \(call.path)")
        }
        switch call.member {
        case "GetAll":
            return .reply([.dictionary(properties)])
        case "Get", "Set":
            guard arguments.count >= 2, let name = arguments[1].string else {
                return .error(name: DBusMethodResult.invalidArgsName, message: "\(call.name) needs a property name")
            }
            guard let value = properties[name] else {
                return .error(name: DBusMethodResult.unknownPropertyName, message: "no property \(interface).\(name)")
            }
            guard call.member == "Get" else {
                return .error(name: DBusMethodResult.propertyReadOnlyName, message: "\(interface).\(name) is read-only")
            }
            return .reply([.variant(value)])
        default:
            return .unknownMethod(call)
        }
    }

    /// `a{oa{sa{sv}}}`, sorted by path and interface so replies are reproducible.
    static func encode(_ objects: [String: [String: [String: DBusValue]]]) -> DBusValue {
        .array(
            elementSignature: "{oa{sa{sv}}}",
            objects.sorted { $0.key < $1.key }.map { path, interfaces in
                .dictEntry(
                    .objectPath(path),
                    .array(
                        elementSignature: "{sa{sv}}",
                        interfaces.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .dictionary($0.value)) }
                    ))
            })
    }
}

extension DBusClient {
    /// Exports `tree` (its root and every path below it): the standard interfaces are answered from the tree
    /// (`DBusObjectTree.answer`), every other call to one of its objects goes to `methods` (on the loop thread,
    /// as for `export(path:subtree:_:)`).
    public func export(
        _ tree: DBusObjectTree,
        methods: @escaping @Sendable (DBusMethodCall) -> DBusMethodResult = { .unknownMethod($0) }
    ) throws -> DBusExport {
        try export(path: tree.root, subtree: true) { call in tree.answer(call) ?? methods(call) }
    }
}

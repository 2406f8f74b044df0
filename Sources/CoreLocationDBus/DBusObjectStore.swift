import Synchronization

/// Objects under one root whose set and properties change while exported — what a service exports (GeoClue's
/// manager, its clients and their locations): the standard interfaces are answered as `DBusObjectTree` answers
/// them (ObjectManager at the root, Properties `Get`/`GetAll` on each object), and besides
///
/// - `Properties.Set` goes to the exporter's `setProperty` (`DBusClient.export(_:methods:setProperty:)`); a write
///   it accepts is stored and announced with `PropertiesChanged`, one it refuses is answered with its error;
///   without `setProperty` every property is read-only (`PropertyReadOnly`);
/// - `update` stores new values and emits `PropertiesChanged` with those that differ; `add` and `remove` emit
///   ObjectManager's `InterfacesAdded` / `InterfacesRemoved` from the root.
///
/// Signals go out on the connection the store was last exported on, in the order of the changes (they are sent
/// under the store's lock); before it is exported, changes are only stored.
public final class DBusObjectStore: Sendable {
    private struct State {
        var objects: [String: [String: [String: DBusValue]]]
        /// Objects of one peer (a unique name): only it reads them, and their signals go to it alone.
        var audience: [String: String] = [:]
        weak var client: DBusClient?
    }

    /// The ObjectManager's path; every object is this path or below it.
    public let root: String
    private let state: Mutex<State>

    /// Whether objects coming and going are announced (ObjectManager's `InterfacesAdded` / `InterfacesRemoved`).
    /// A service whose clients follow their objects otherwise (GeoClue's `LocationUpdated` names the new location)
    /// leaves them out: two messages less for each object it makes.
    public let announcesObjects: Bool

    public init(root: String, objects: [String: [String: [String: DBusValue]]] = [:], announcesObjects: Bool = true) {
        self.root = root
        self.announcesObjects = announcesObjects
        state = Mutex(State(objects: objects, client: nil))
    }

    /// The objects now, as a fixed tree.
    public var tree: DBusObjectTree { DBusObjectTree(root: root, objects: state.withLock { $0.objects }) }

    /// One property's value now.
    public func value(_ name: String, of interface: String, at path: String) -> DBusValue? {
        state.withLock { $0.objects[path]?[interface]?[name] }
    }

    private func checkPath(_ path: String) throws {
        let prefix = root == "/" ? "/" : root + "/"
        guard DBusNames.isObjectPath(path), path == root || path.hasPrefix(prefix) else {
            throw DBusCallError(.invalidArgument, "'\(path)' is not an object path at or below \(root)")
        }
    }

    /// Adds interfaces (with their properties) to the object at `path`, creating it; an interface it already has
    /// is replaced. Emits `InterfacesAdded` for an object below the root.
    ///
    /// `audience`: the object is that peer's alone (a GeoClue client and its locations are its caller's): others
    /// neither read it (`UnknownObject`, as if it were not there) nor see it in `GetManagedObjects`, and its
    /// signals go to that peer only — one caller's position is never broadcast to the bus, and a service with
    /// many callers sends each change once, not to everyone.
    public func add(_ path: String, interfaces: [String: [String: DBusValue]], audience: String? = nil) throws {
        try checkPath(path)
        for name in interfaces.keys where !DBusNames.isInterface(name) {
            throw DBusCallError(.invalidArgument, "'\(name)' is not an interface name")
        }
        if let audience, !DBusNames.isBusName(audience) {
            throw DBusCallError(.invalidArgument, "'\(audience)' is not a bus name")
        }
        try state.withLock { state in
            state.objects[path, default: [:]].merge(interfaces) { _, new in new }
            if let audience { state.audience[path] = audience }
            guard path != root, announcesObjects, let client = state.client else { return }
            let added = DBusValue.array(
                elementSignature: "{sa{sv}}",
                interfaces.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .dictionary($0.value)) })
            try client.emitSignal(
                path: root, interface: DBusClient.objectManagerInterface, member: "InterfacesAdded",
                arguments: [.objectPath(path), added], destination: state.audience[path])
        }
    }

    /// Removes `interfaces` from the object at `path` (nil: all, and the object). Emits `InterfacesRemoved`.
    public func remove(_ path: String, interfaces: [String]? = nil) throws {
        try state.withLock { state in
            guard let existing = state.objects[path] else { return }
            let names = (interfaces ?? Array(existing.keys)).filter { existing[$0] != nil }.sorted()
            for name in names { state.objects[path]?[name] = nil }
            let audience = state.audience[path]
            if state.objects[path]?.isEmpty == true {
                state.objects[path] = nil
                state.audience[path] = nil
            }
            guard path != root, !names.isEmpty, announcesObjects, let client = state.client else { return }
            try client.emitSignal(
                path: root, interface: DBusClient.objectManagerInterface, member: "InterfacesRemoved",
                arguments: [.objectPath(path), .strings(names)], destination: audience)
        }
    }

    /// Stores `changed` in `interface` at `path` and emits `PropertiesChanged` with the values that differ (none:
    /// no signal).
    ///
    /// - Throws: `.invalidArgument` when there is no such object or interface.
    public func update(_ path: String, interface: String, _ changed: [String: DBusValue]) throws {
        try state.withLock { state in
            guard var properties = state.objects[path]?[interface] else {
                throw DBusCallError(.invalidArgument, "no interface \(interface) at \(path)")
            }
            let different = changed.filter { properties[$0.key] != $0.value }
            guard !different.isEmpty else { return }
            properties.merge(different) { _, new in new }
            state.objects[path]?[interface] = properties
            try state.client?.emitPropertiesChanged(
                path: path, interface: interface, changed: different, destination: state.audience[path])
        }
    }

    func bind(_ client: DBusClient) { state.withLock { $0.client = client } }

    /// What `call`'s sender may see: every object without an audience, and its own. One object for a call to
    /// one (not the whole set copied at each `Get`); all of them for `GetManagedObjects` at the root.
    private func visibleTree(to call: DBusMethodCall) -> DBusObjectTree {
        state.withLock { state in
            func visible(_ path: String) -> Bool { state.audience[path].map { $0 == call.sender } ?? true }
            if call.path == root, call.interface == DBusClient.objectManagerInterface {
                return DBusObjectTree(root: root, objects: state.objects.filter { visible($0.key) })
            }
            guard let object = state.objects[call.path], visible(call.path) else {
                return DBusObjectTree(root: root, objects: [:])
            }
            return DBusObjectTree(root: root, objects: [call.path: object])
        }
    }

    /// The answer to `call`, or nil when it is for the application (`DBusObjectTree.answer`), with `Set` handled.
    func answer(
        _ call: DBusMethodCall, setProperty: (@Sendable (DBusPropertyWrite) -> DBusMethodResult)?
    ) -> DBusMethodResult? {
        guard call.interface == DBusClient.propertiesInterface, call.member == "Set" else {
            return visibleTree(to: call).answer(call)
        }
        guard call.arguments.count == 3, let interface = call.arguments[0].string,
            let name = call.arguments[1].string, case .variant(let value) = call.arguments[2]
        else {
            return .error(name: DBusMethodResult.invalidArgsName, message: "Set takes an interface, a name and a value")
        }
        guard let properties = visibleTree(to: call).objects[call.path] else {
            return .error(name: DBusMethodResult.unknownObjectName, message: "no object at \(call.path)")
        }
        guard let current = properties[interface] else {
            return .error(
                name: DBusMethodResult.unknownInterfaceName, message: "no interface \(interface) at \(call.path)")
        }
        guard let old = current[name] else {
            return .error(name: DBusMethodResult.unknownPropertyName, message: "no property \(interface).\(name)")
        }
        guard let setProperty else {
            return .error(name: DBusMethodResult.propertyReadOnlyName, message: "\(interface).\(name) is read-only")
        }
        guard value.signature == old.signature else {
            return .error(
                name: DBusMethodResult.invalidArgsName,
                message: "\(interface).\(name) is of type \(old.signature), not \(value.signature)")
        }
        let result = setProperty(DBusPropertyWrite(call: call, interface: interface, name: name, value: value))
        guard case .reply = result else { return result }
        do {
            try update(call.path, interface: interface, [name: value])
        } catch {
            return .error(name: DBusMethodResult.failedName, message: "\(interface).\(name): \(error)")
        }
        return .empty
    }
}

/// A peer's `Properties.Set` on an exported `DBusObjectStore`: who asks (`call.sender`), and what. The value has
/// the property's type (checked before the exporter sees it).
public struct DBusPropertyWrite: Sendable, Hashable {
    public var call: DBusMethodCall
    public var interface: String
    public var name: String
    public var value: DBusValue

    public init(call: DBusMethodCall, interface: String, name: String, value: DBusValue) {
        self.call = call
        self.interface = interface
        self.name = name
        self.value = value
    }
}

extension DBusClient {
    /// Exports `store` at its root and below, and makes this connection the one its changes are announced on.
    /// Calls to the standard interfaces are answered from the store; `Properties.Set` goes to `setProperty`
    /// (nil: every property read-only; its `.reply` accepts the write, which is stored and announced, its `.error`
    /// refuses it); every other call to one of the store's objects goes to `methods`. All of them run on the
    /// connection's thread (see `export(path:subtree:_:)`).
    public func export(
        _ store: DBusObjectStore,
        methods: @escaping @Sendable (DBusMethodCall) -> DBusMethodResult = { .unknownMethod($0) },
        setProperty: (@Sendable (DBusPropertyWrite) -> DBusMethodResult)? = nil
    ) throws -> DBusExport {
        try export(store, answering: { call, replier in replier.send(methods(call)) }, setProperty: setProperty)
    }

    /// As `export(_:methods:setProperty:)`, with the application's calls answered through a `DBusReplier` (at
    /// once or later, see `export(path:subtree:answering:)`).
    public func export(
        _ store: DBusObjectStore, answering: @escaping @Sendable (DBusMethodCall, DBusReplier) -> Void,
        setProperty: (@Sendable (DBusPropertyWrite) -> DBusMethodResult)? = nil
    ) throws -> DBusExport {
        let export = try export(path: store.root, subtree: true) { call, replier in
            if let answer = store.answer(call, setProperty: setProperty) {
                replier.send(answer)
            } else {
                answering(call, replier)
            }
        }
        store.bind(self)
        return export
    }
}

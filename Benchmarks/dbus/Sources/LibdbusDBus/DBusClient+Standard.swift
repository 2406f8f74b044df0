/// The standard interfaces every service uses: Properties, ObjectManager, and the bus's name ownership.
extension DBusClient {
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    public static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// One property (`org.freedesktop.DBus.Properties.Get`), variant removed.
    public func property(
        _ name: String, of interface: String, at path: String, on destination: String,
        timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> DBusValue {
        let reply = try await call(
            destination: destination, path: path, interface: Self.propertiesInterface, member: "Get",
            arguments: [.string(interface), .string(name)], timeout: timeout
        )
        guard let value = reply.first else {
            throw DBusCallError(.remote, "\(interface).\(name): an empty reply to Properties.Get")
        }
        return value.unwrapped
    }

    /// All properties of an interface (`GetAll`), variants kept (read them through the accessors).
    public func properties(
        of interface: String, at path: String, on destination: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> [String: DBusValue] {
        let reply = try await call(
            destination: destination, path: path, interface: Self.propertiesInterface, member: "GetAll",
            arguments: [.string(interface)], timeout: timeout
        )
        guard let properties = reply.first?.stringKeyed else {
            throw DBusCallError(.remote, "\(interface): Properties.GetAll did not answer a{sv}")
        }
        return properties
    }

    /// Sets a property (`Properties.Set`); `value` is wrapped in a variant here.
    public func setProperty(
        _ name: String, of interface: String, at path: String, on destination: String, to value: DBusValue,
        timeout: Duration = DBusClient.defaultTimeout
    ) async throws {
        _ = try await call(
            destination: destination, path: path, interface: Self.propertiesInterface, member: "Set",
            arguments: [.string(interface), .string(name), .variant(value)], timeout: timeout
        )
    }

    /// Every object an ObjectManager exports: path → interface → property → value.
    public func managedObjects(
        at path: String, on destination: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> [String: [String: [String: DBusValue]]] {
        try Self.managedObjects(
            inReply: try await call(
                destination: destination, path: path, interface: Self.objectManagerInterface,
                member: "GetManagedObjects", timeout: timeout
            )
        )
    }

    /// The objects of a GetManagedObjects reply (for callers of the reply-handler `call`).
    public static func managedObjects(inReply reply: [DBusValue]) throws -> [String: [String: [String: DBusValue]]] {
        guard let objects = reply.first?.stringKeyed else {
            throw DBusCallError(.remote, "GetManagedObjects did not answer a{oa{sa{sv}}}")
        }
        return try objects.mapValues { interfaces in
            guard let interfaces = interfaces.stringKeyed else {
                throw DBusCallError(.remote, "GetManagedObjects: an object's interfaces are not a{sa{sv}}")
            }
            return try interfaces.mapValues { properties in
                guard let properties = properties.stringKeyed else {
                    throw DBusCallError(.remote, "GetManagedObjects: properties are not a{sv}")
                }
                return properties
            }
        }
    }

    /// The unique name owning `name` now, or nil when nobody does.
    public func nameOwner(_ name: String, timeout: Duration = DBusClient.defaultTimeout) async throws -> String? {
        do {
            let reply = try await call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(name)], timeout: timeout
            )
            return reply.first?.string
        } catch let error as DBusCallError where error.isServiceMissing {
            return nil
        }
    }

    /// Follows who owns `name`: `handler` gets the current owner (nil: none) first, then every change — a
    /// service that starts, stops or restarts (a new unique name). Runs on the loop thread.
    public func watchNameOwner(
        _ name: String, _ handler: @escaping @Sendable (String?) -> Void
    ) async throws -> DBusSubscription {
        let rule = DBusMatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arg0: name
        )
        let subscription = try await subscribe(rule) { signal in
            guard signal.arguments.count == 3, let owner = signal.arguments[2].string else { return }
            handler(owner.isEmpty ? nil : owner)
        }
        handler(try await nameOwner(name))
        return subscription
    }

    /// Follows an ObjectManager's objects appearing and going (`InterfacesAdded` / `InterfacesRemoved`).
    public func watchObjects(
        sender: String, managerPath: String,
        added: @escaping @Sendable (_ path: String, _ interfaces: [String: [String: DBusValue]]) -> Void,
        removed: @escaping @Sendable (_ path: String, _ interfaces: [String]) -> Void
    ) async throws -> [DBusSubscription] {
        let addedSubscription = try await subscribe(
            DBusMatchRule(sender: sender, interface: Self.objectManagerInterface, member: "InterfacesAdded",
                path: managerPath)
        ) { signal in
            guard signal.arguments.count == 2, let path = signal.arguments[0].string,
                let interfaces = signal.arguments[1].stringKeyed
            else { return }
            added(path, interfaces.compactMapValues(\.stringKeyed))
        }
        let removedSubscription = try await subscribe(
            DBusMatchRule(sender: sender, interface: Self.objectManagerInterface, member: "InterfacesRemoved",
                path: managerPath)
        ) { signal in
            guard signal.arguments.count == 2, let path = signal.arguments[0].string,
                let names = signal.arguments[1].elements?.compactMap(\.string)
            else { return }
            removed(path, names)
        }
        return [addedSubscription, removedSubscription]
    }

    /// Follows `PropertiesChanged` of one interface on objects under `pathNamespace` (changed values, variants
    /// kept, and the names of invalidated properties).
    public func watchProperties(
        sender: String, interface: String, pathNamespace: String,
        _ handler: @escaping @Sendable (_ path: String, _ changed: [String: DBusValue], _ invalidated: [String]) -> Void
    ) async throws -> DBusSubscription {
        try await subscribe(
            DBusMatchRule(sender: sender, interface: Self.propertiesInterface, member: "PropertiesChanged",
                pathNamespace: pathNamespace, arg0: interface)
        ) { signal in
            guard signal.arguments.count >= 2, let changed = signal.arguments[1].stringKeyed else { return }
            let invalidated = signal.arguments.count > 2 ? (signal.arguments[2].elements?.compactMap(\.string) ?? []) : []
            handler(signal.path, changed, invalidated)
        }
    }
}

/// The bus daemon's own methods a service needs (`org.freedesktop.DBus`): owning a well-known name, and learning
/// who a caller is from the kernel's credentials as the bus saw them when the caller connected.
extension DBusClient {
    static let busName = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"
    static let busInterface = "org.freedesktop.DBus"

    private func busCall(_ member: String, _ arguments: [DBusValue], timeout: Duration) async throws -> [DBusValue] {
        try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: member,
            arguments: arguments, timeout: timeout)
    }

    private func uint32Reply(_ reply: [DBusValue], _ member: String) throws -> UInt32 {
        guard case .uint32(let value) = reply.first else {
            throw DBusCallError(.remote, "\(member) did not answer a uint32")
        }
        return value
    }

    /// Asks the bus for `name` (`RequestName`). With the default flags the request queues behind a current owner
    /// (`.inQueue`); add `.doNotQueue` to be told `.exists` instead.
    public func requestName(
        _ name: String, flags: DBusRequestNameFlags = [], timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> DBusRequestNameReply {
        guard DBusNames.isBusName(name), !name.hasPrefix(":") else {
            throw DBusCallError(.invalidArgument, "'\(name)' is not a well-known bus name")
        }
        let reply = try await busCall("RequestName", [.string(name), .uint32(flags.rawValue)], timeout: timeout)
        let code = try uint32Reply(reply, "RequestName")
        guard let answer = DBusRequestNameReply(rawValue: code) else {
            throw DBusCallError(.remote, "RequestName answered \(code)")
        }
        return answer
    }

    /// Gives up `name` (`ReleaseName`); queued requests of ours for it are dropped too.
    public func releaseName(
        _ name: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> DBusReleaseNameReply {
        guard DBusNames.isBusName(name), !name.hasPrefix(":") else {
            throw DBusCallError(.invalidArgument, "'\(name)' is not a well-known bus name")
        }
        let code = try uint32Reply(try await busCall("ReleaseName", [.string(name)], timeout: timeout), "ReleaseName")
        guard let answer = DBusReleaseNameReply(rawValue: code) else {
            throw DBusCallError(.remote, "ReleaseName answered \(code)")
        }
        return answer
    }

    /// The process ID of the connection that owns `name` (a caller's unique name: `DBusMethodCall.sender`).
    public func connectionUnixProcessID(
        of name: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> UInt32 {
        try uint32Reply(
            try await busCall("GetConnectionUnixProcessID", [.string(name)], timeout: timeout),
            "GetConnectionUnixProcessID")
    }

    /// The Unix user ID of the connection that owns `name`.
    public func connectionUnixUser(
        of name: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> UInt32 {
        try uint32Reply(
            try await busCall("GetConnectionUnixUser", [.string(name)], timeout: timeout), "GetConnectionUnixUser")
    }

    /// Everything the bus knows of the connection that owns `name` (`GetConnectionCredentials`).
    public func connectionCredentials(
        of name: String, timeout: Duration = DBusClient.defaultTimeout
    ) async throws -> DBusCredentials {
        let reply = try await busCall("GetConnectionCredentials", [.string(name)], timeout: timeout)
        guard let all = reply.first?.stringKeyed else {
            throw DBusCallError(.remote, "GetConnectionCredentials did not answer a{sv}")
        }
        return DBusCredentials(all)
    }

    /// Every change of owner of every name (`NameOwnerChanged` without a filter): a service following its callers
    /// learns here when one leaves the bus (its unique name's new owner is nil). Runs on the connection's thread.
    public func watchNameOwnerChanges(
        _ handler: @escaping @Sendable (_ name: String, _ oldOwner: String?, _ newOwner: String?) -> Void
    ) async throws -> DBusSubscription {
        let rule = DBusMatchRule(
            sender: Self.busName, interface: Self.busInterface, member: "NameOwnerChanged", path: Self.busPath)
        return try await subscribe(rule) { signal in
            let strings = signal.arguments.compactMap(\.string)
            guard signal.arguments.count == 3, strings.count == 3 else { return }
            handler(strings[0], strings[1].isEmpty ? nil : strings[1], strings[2].isEmpty ? nil : strings[2])
        }
    }
}

/// `RequestName`'s flags (the specification's `DBUS_NAME_FLAG_*`).
public struct DBusRequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Another connection asking with `.replaceExisting` may take the name from us.
    public static let allowReplacement = DBusRequestNameFlags(rawValue: 0x1)
    /// Take the name from its owner if that owner allowed replacement.
    public static let replaceExisting = DBusRequestNameFlags(rawValue: 0x2)
    /// Fail (`.exists`) rather than wait in the queue.
    public static let doNotQueue = DBusRequestNameFlags(rawValue: 0x4)
}

/// `RequestName`'s answer.
public enum DBusRequestNameReply: UInt32, Sendable, Hashable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

/// `ReleaseName`'s answer.
public enum DBusReleaseNameReply: UInt32, Sendable, Hashable {
    case released = 1
    case nonExistent = 2
    case notOwner = 3
}

/// A connection's credentials as the bus daemon took them from the kernel when it connected.
public struct DBusCredentials: Sendable, Hashable {
    public var processID: UInt32?
    public var userID: UInt32?
    public var groupIDs: [UInt32]?
    /// The security label (an SELinux context, an AppArmor profile), as bytes, NUL-terminated as the bus gives it.
    public var securityLabel: [UInt8]?
    /// Every key the bus answered, values as they came (variants kept).
    public var all: [String: DBusValue]

    public init(_ all: [String: DBusValue]) {
        self.all = all
        processID = all["ProcessID"]?.integer.flatMap { UInt32(exactly: $0) }
        userID = all["UnixUserID"]?.integer.flatMap { UInt32(exactly: $0) }
        groupIDs = all["UnixGroupIDs"]?.elements?.compactMap { $0.integer.flatMap { UInt32(exactly: $0) } }
        securityLabel = all["LinuxSecurityLabel"]?.bytes
    }
}

import CoreLocationDBus

/// The library's native layer (Sources/CoreLocationDBus through the symlink).
struct NativeEndpoint: Endpoint {
    static let label = "native"
    let client: DBusClient

    init(address: String) throws { client = try DBusClient(bus: .address(address)) }

    var uniqueName: String { client.uniqueName }

    func call(destination: String, path: String, interface: String, member: String) async throws {
        _ = try await client.call(
            destination: destination, path: path, interface: interface, member: member,
            arguments: [.string("hello"), .int32(7)])
    }

    func exportEcho(path: String) throws -> AnyObject {
        try client.export(path: path) { .reply($0.arguments) }
    }

    func subscribe(sender: String, interface: String, member: String, _ handler: @escaping @Sendable () -> Void)
        async throws -> AnyObject
    {
        try await client.subscribe(DBusMatchRule(sender: sender, interface: interface, member: member)) { _ in handler()
        }
    }

    func emit(path: String, interface: String, member: String) throws {
        try client.emitSignal(
            path: path, interface: interface, member: member, arguments: [.string("hello"), .int32(7)])
    }

    func close() { client.close() }
}

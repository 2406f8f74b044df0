/// One D-Bus implementation as the benchmark drives it: a connection that calls, answers, emits and hears.
/// Each adapter file imports only its own layer, so the two layers' same-named types never meet.
protocol Endpoint: Sendable {
    static var label: String { get }
    init(address: String) throws
    var uniqueName: String { get }
    /// One method call with a string and an int32, awaiting the reply.
    func call(destination: String, path: String, interface: String, member: String) async throws
    /// Exports `path`, answering every call with its own arguments; the result keeps the export alive.
    func exportEcho(path: String) throws -> AnyObject
    /// Subscribes to `member` of `interface` from `sender`; the result keeps the subscription alive.
    func subscribe(sender: String, interface: String, member: String, _ handler: @escaping @Sendable () -> Void)
        async throws -> AnyObject
    /// Emits `member` (a string and an int32) from `path`.
    func emit(path: String, interface: String, member: String) throws
    func close()
}

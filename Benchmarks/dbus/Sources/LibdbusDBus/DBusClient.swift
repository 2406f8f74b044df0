import CCoreLocationDBus
import Foundation
import Logging
import Synchronization

/// A private connection to a message bus, with its own event-loop thread (`DBusEventLoop`).
///
/// Calls are `async` and complete from the loop thread; signal handlers run on the loop thread too, in arrival
/// order — they must return quickly and must not wait for another call's reply (hand work off instead).
/// `close()` (or releasing the client) ends the thread and the connection.
public final class DBusClient: Sendable {
    public enum Bus: Sendable, Hashable {
        /// The system bus, or `DBUS_SYSTEM_BUS_ADDRESS` when set (tests point it at a private daemon).
        case system
        /// The session bus (`DBUS_SESSION_BUS_ADDRESS`).
        case session
        /// A bus at a D-Bus address (`unix:path=/tmp/x`).
        case address(String)
    }

    /// Default method-call timeout.
    public static let defaultTimeout: Duration = .seconds(25)

    // libdbus's DBusConnection: thread-safe once dbus_threads_init_default() has run (done before it is opened).
    // The loop thread closes it and drops its reference after close(); the client holds a second reference
    // until deinit, so the pointer stays valid (a closed connection refuses to send) for as long as `self` lives.
    nonisolated(unsafe) let connection: OpaquePointer  // safe: libdbus locks it (see above)
    private let loop: DBusEventLoop
    let registry: DBusSubscriptionRegistry
    /// Our unique name on the bus (`:1.42`).
    public let uniqueName: String
    let logger: Logger

    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    public init(bus: Bus, logger: Logger = Logger(label: "corelocation.dbus")) throws {
        guard Self.threadsReady else { throw DBusCallError(.outOfMemory, "dbus_threads_init_default") }
        self.logger = logger
        var error = CCoreLocationDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let opened: OpaquePointer?
        switch bus {
        case .system: opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .session: opened = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .address(let address):
            opened = dbus_connection_open_private(address, &error)
            if let opened, dbus_bus_register(opened, &error) == 0 {
                dbus_connection_close(opened)
                dbus_connection_unref(opened)
                throw Self.error(from: error, code: .connect, fallback: "registering on \(address)")
            }
        }
        guard let opened else { throw Self.error(from: error, code: .connect, fallback: "connecting to \(bus)") }
        // libdbus's default for bus connections is to _exit() the process when the bus goes away.
        dbus_connection_set_exit_on_disconnect(opened, 0)
        connection = opened
        uniqueName = dbus_bus_get_unique_name(opened).map { String(cString: $0) } ?? ""
        registry = DBusSubscriptionRegistry(logger: logger)
        do {
            loop = try DBusEventLoop()
        } catch {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw error
        }
        let filterContext = Unmanaged.passRetained(registry).toOpaque()
        guard loop.install(on: opened),
            dbus_connection_add_filter(
                opened,
                { _, message, data in
                    guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                    Unmanaged<DBusSubscriptionRegistry>.fromOpaque(data).takeUnretainedValue().deliver(message)
                    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
                },
                filterContext,
                { data in
                    guard let data else { return }
                    Unmanaged<DBusSubscriptionRegistry>.fromOpaque(data).release()
                }
            ) != 0
        else {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw DBusCallError(.outOfMemory, "installing the event loop")
        }
        _ = dbus_connection_ref(opened)  // the client's own reference, dropped in deinit
        let loop = self.loop
        // The loop thread becomes the connection's only closer; libdbus is thread-safe (see `connection`).
        nonisolated(unsafe) let handle = opened  // safe: libdbus is thread-safe; only the loop closes it
        let thread = Thread { loop.run(handle) }
        thread.name = "corelocation.dbus"
        thread.start()
    }

    deinit {
        loop.stop()
        dbus_connection_unref(connection)
    }

    /// Ends the loop thread and closes the connection; pending calls fail with `.disconnected`.
    public func close() { loop.stop() }

    /// True until the bus goes away or `close()`.
    public var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 && !registry.isDisconnected }

    /// Calls `handler` once when the connection to the bus is lost (the bus daemon stopped).
    public func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        registry.onDisconnect(handler)
    }

    static func error(from error: CCoreLocationDBus.DBusError, code: DBusCallError.Code, fallback: String) -> DBusCallError {
        guard dbus_error_is_set(withUnsafePointer(to: error) { $0 }) != 0 else { return DBusCallError(code, fallback) }
        let name = error.name.map { String(cString: $0) }
        let message = error.message.map { String(cString: $0) } ?? fallback
        return DBusCallError(code, name: name, message)
    }
}

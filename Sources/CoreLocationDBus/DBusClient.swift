import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to a message bus, spoken natively (no libdbus; docs/decisions/0058), with its own thread.
///
/// Calls are `async` and complete from the connection's thread; signal handlers and exported objects' handlers
/// run on that thread too, in arrival order — they must return quickly and must not wait for another call's
/// reply (hand work off instead). `close()` (or releasing the client) ends the thread and the connection.
public final class DBusClient: Sendable {
    public enum Bus: Sendable, Hashable {
        /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set (tests point it at a private daemon), else
        /// `unix:path=/var/run/dbus/system_bus_socket`.
        case system
        /// The session bus: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
        case session
        /// A bus at a D-Bus address (`unix:path=/tmp/x`, `unix:abstract=name`; several separated by `;` are tried
        /// in order).
        case address(String)
    }

    /// Default method-call timeout (libdbus's, which the callers were written against).
    public static let defaultTimeout: Duration = .seconds(25)

    let connection: DBusConnection
    let registry: DBusSubscriptionRegistry
    /// Our unique name on the bus (`:1.42`).
    public let uniqueName: String
    let logger: Logger

    /// Connects, authenticates (SASL EXTERNAL) and says Hello, blocking up to `defaultTimeout`.
    ///
    /// - Throws: `DBusCallError(.connect)` naming what failed in words: no socket at the address (`name`
    ///   `org.freedesktop.DBus.Error.FileNotFound`; see `isBusMissing`), nothing listening (`NoServer`), the
    ///   credentials refused (`AuthFailed`), an address that cannot be used (`BadAddress`).
    public init(bus: Bus, logger: Logger = Logger(label: "corelocation.dbus")) throws {
        self.logger = logger
        let addresses = try DBusAddress.addresses(for: bus, environment: ProcessInfo.processInfo.environment)
        let established = try DBusHandshake.open(addresses, timeout: Self.defaultTimeout)
        let registry = DBusSubscriptionRegistry()
        let connection: DBusConnection
        do {
            connection = try DBusConnection(established, registry: registry, logger: logger)
        } catch {
            Glibc.close(established.fd)
            throw error
        }
        self.registry = registry
        self.connection = connection
        uniqueName = established.uniqueName
        logger.debug("D-Bus connected", metadata: ["address": "\(established.address)", "name": "\(uniqueName)"])
        let thread = Thread { connection.run() }
        thread.name = "corelocation.dbus"
        thread.start()
    }

    deinit { connection.stop() }

    /// Ends the connection's thread and closes the connection; pending calls fail with `.disconnected`.
    public func close() { connection.stop() }

    /// True until the bus goes away or `close()`.
    public var isConnected: Bool { connection.isOpen && !registry.isDisconnected }

    /// Calls `handler` once when the connection to the bus is lost (the bus daemon stopped).
    public func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        registry.onDisconnect(handler)
    }
}

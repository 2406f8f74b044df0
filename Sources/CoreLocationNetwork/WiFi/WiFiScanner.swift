import CoreLocationDBus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Anything that lists nearby access points.
public protocol WiFiScanner: Sendable {
    func scan() async throws -> [WiFiAccessPoint]
}

/// NetworkManager on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured), connected on first use and again
/// after the bus or NetworkManager went away.
public final class SystemNetworkManagerScanner: WiFiScanner {
    private let bus: DBusClient.Bus
    private let client = Mutex<DBusClient?>(nil)

    public init(bus: DBusClient.Bus = .system) { self.bus = bus }

    public func scan() async throws -> [WiFiAccessPoint] {
        let connection: DBusClient
        do {
            connection = try client.withLock { client in
                if let existing = client, existing.isConnected { return existing }
                let made = try DBusClient(bus: bus)
                client = made
                return made
            }
        } catch {
            throw NetworkSourceError(.busFailed, "the system bus: \(error)")
        }
        return try await NetworkManagerScanner(client: connection).scan(bootSeconds: Self.bootSeconds())
    }

    /// CLOCK_BOOTTIME, seconds: NetworkManager's `LastSeen` clock.
    static func bootSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

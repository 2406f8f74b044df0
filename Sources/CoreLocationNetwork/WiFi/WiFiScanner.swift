import CoreLocationDBus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Anything that lists nearby access points.
public protocol WiFiScanner: Sendable {
    func scan() async throws -> [WiFiAccessPoint]
    /// Calls `handler` whenever the scan results change (an access point appeared or went, a new scan finished);
    /// nil when this scanner cannot tell, and the source reads it at its interval only. The watch lasts until
    /// cancelled or released.
    func watchChanges(_ handler: @escaping @Sendable () -> Void) async -> WiFiScanWatch?
}

extension WiFiScanner {
    public func watchChanges(_ handler: @escaping @Sendable () -> Void) async -> WiFiScanWatch? { nil }
}

/// A running watch of scan results (`WiFiScanner.watchChanges`).
public final class WiFiScanWatch: Sendable {
    private let subscriptions: [DBusSubscription]

    public init(_ subscriptions: [DBusSubscription]) { self.subscriptions = subscriptions }

    public func cancel() {
        for subscription in subscriptions { subscription.cancel() }
    }
}

/// NetworkManager on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured), connected on first use and again
/// after the bus or NetworkManager went away.
public final class SystemNetworkManagerScanner: WiFiScanner {
    private let bus: DBusClient.Bus
    private let client = Mutex<DBusClient?>(nil)

    public init(bus: DBusClient.Bus = .system) { self.bus = bus }

    public func scan() async throws -> [WiFiAccessPoint] {
        try await NetworkManagerScanner(client: connection()).scan(bootSeconds: Self.bootSeconds())
    }

    /// NetworkManager's AccessPointAdded/AccessPointRemoved and LastScan changes (`NetworkManagerScanner.watchChanges`);
    /// nil when the bus cannot be reached (the source then tries again at its next attempt). The match rules name
    /// NetworkManager by its well-known name, so a restarted NetworkManager is followed; a bus that went away is
    /// not (the watch is made again on the next attempt after the source restarts).
    public func watchChanges(_ handler: @escaping @Sendable () -> Void) async -> WiFiScanWatch? {
        guard let connection = try? connection(),
            let subscriptions = try? await NetworkManagerScanner(client: connection).watchChanges(handler)
        else { return nil }
        return WiFiScanWatch(subscriptions)
    }

    private func connection() throws -> DBusClient {
        do {
            return try client.withLock { client in
                if let existing = client, existing.isConnected { return existing }
                let made = try DBusClient(bus: bus)
                client = made
                return made
            }
        } catch {
            let missing = (error as? DBusCallError)?.missingPart(service: "NetworkManager", package: "network-manager")
            throw NetworkSourceError(.busFailed, missing ?? "the system bus: \(error)")
        }
    }

    /// CLOCK_BOOTTIME, seconds: NetworkManager's `LastSeen` clock.
    static func bootSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

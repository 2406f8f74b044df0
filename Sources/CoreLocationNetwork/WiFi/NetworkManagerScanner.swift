import CoreLocationDBus
import Logging

/// Reads NetworkManager's latest Wi-Fi scan over D-Bus (system bus; no root needed: NetworkManager lets any
/// user read access points). It does not ask for a scan (`RequestScan` needs polkit): NetworkManager scans
/// on its own every few minutes, and more often while the user looks at networks.
public struct NetworkManagerScanner: Sendable {
    public static let service = "org.freedesktop.NetworkManager"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let devicesPath = "/org/freedesktop/NetworkManager/Devices"
    static let deviceInterface = "org.freedesktop.NetworkManager.Device"
    static let wirelessInterface = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPointInterface = "org.freedesktop.NetworkManager.AccessPoint"
    /// NM_DEVICE_TYPE_WIFI.
    static let wifiDeviceType: Int64 = 2

    private let client: DBusClient
    private let timeout: Duration

    public init(client: DBusClient, timeout: Duration = .seconds(5)) {
        self.client = client
        self.timeout = timeout
    }

    /// Every access point of every Wi-Fi device, as NetworkManager last saw them. `bootSeconds` is the
    /// CLOCK_BOOTTIME now, seconds, to turn `LastSeen` into an age (nil: ages are 0).
    public func scan(bootSeconds: Double? = nil) async throws -> [WiFiAccessPoint] {
        do {
            let devices = try await client.call(
                destination: Self.service, path: Self.managerPath, interface: Self.service, member: "GetDevices",
                timeout: timeout
            ).first?.elements?.compactMap(\.string) ?? []
            var accessPoints: [WiFiAccessPoint] = []
            for device in devices {
                let type = try? await client.property(
                    "DeviceType", of: Self.deviceInterface, at: device, on: Self.service, timeout: timeout)
                guard type?.integer == Self.wifiDeviceType else { continue }
                let paths = try await client.call(
                    destination: Self.service, path: device, interface: Self.wirelessInterface,
                    member: "GetAllAccessPoints", timeout: timeout
                ).first?.elements?.compactMap(\.string) ?? []
                for path in paths {
                    // An access point can vanish between the list and the read: skip it.
                    guard let properties = try? await client.properties(
                        of: Self.accessPointInterface, at: path, on: Self.service, timeout: timeout)
                    else { continue }
                    if let accessPoint = Self.accessPoint(properties, bootSeconds: bootSeconds) {
                        accessPoints.append(accessPoint)
                    }
                }
            }
            return accessPoints
        } catch let error as DBusCallError {
            throw Self.failure(error)
        }
    }

    /// Calls `handler` (on the D-Bus loop thread) when a Wi-Fi device's access points change: `AccessPointAdded`,
    /// `AccessPointRemoved`, or its `LastScan` property (a scan finished). NetworkManager emits them as its
    /// periodic scans find networks, so a source need not wait for its next interval.
    public func watchChanges(_ handler: @escaping @Sendable () -> Void) async throws -> [DBusSubscription] {
        do {
            var subscriptions: [DBusSubscription] = []
            for member in ["AccessPointAdded", "AccessPointRemoved"] {
                subscriptions.append(
                    try await client.subscribe(
                        DBusMatchRule(
                            sender: Self.service, interface: Self.wirelessInterface, member: member,
                            pathNamespace: Self.devicesPath)
                    ) { _ in handler() })
            }
            subscriptions.append(
                try await client.watchProperties(
                    sender: Self.service, interface: Self.wirelessInterface, pathNamespace: Self.devicesPath
                ) { _, changed, _ in
                    if changed["LastScan"] != nil { handler() }
                })
            return subscriptions
        } catch let error as DBusCallError {
            throw Self.failure(error)
        }
    }

    /// NetworkManager not on the bus says which package to install; other errors keep their words.
    static func failure(_ error: DBusCallError) -> NetworkSourceError {
        let missing = error.missingPart(service: "NetworkManager", package: "network-manager", busName: service)
        return NetworkSourceError(.busFailed, missing ?? "NetworkManager: \(error)", underlying: error)
    }

    static func accessPoint(_ properties: [String: DBusValue], bootSeconds: Double?) -> WiFiAccessPoint? {
        guard let bssid = properties["HwAddress"]?.string, let strength = properties["Strength"]?.integer else {
            return nil
        }
        var age = 0
        if let bootSeconds, let lastSeen = properties["LastSeen"]?.integer, lastSeen > 0 {
            age = max(0, Int((bootSeconds - Double(lastSeen)) * 1000))
        }
        return WiFiAccessPoint(
            bssid: bssid, ssid: properties["Ssid"]?.bytes ?? [],
            signalDBm: WiFiAccessPoint.dBm(fromStrength: Int(strength)),
            frequency: Int(properties["Frequency"]?.integer ?? 0), ageMilliseconds: age)
    }
}

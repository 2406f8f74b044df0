import CoreLocationDBus
import CoreLocationSources
import Foundation

/// The network sources' URLs (docs/decisions/0038), read from an `ExternalSourceSpec`:
///
/// | URL | Source |
/// |---|---|
/// | `ip:` | IP geolocation in the default database (`IPLocationSource.Configuration.defaultDatabasePath`) |
/// | `ip:/path/db.mmdb` | … in this database |
/// | `ip:?address=81.2.69.160` | … of this address instead of the machine's (`CORELOCATION_IP_ADDRESS` otherwise) |
/// | `ip:?refresh=600` | look up again every 600 s (default 300) |
/// | `wifi:` | Wi-Fi positioning (consent from `locationctl network wifi on`), IP fallback in the default database |
/// | `wifi:?fallback=none` | … without the IP fallback; `fallback=/path/db.mmdb` with that database |
/// | `wifi:?interval=60` | an attempt every 60 s while powered (default 30; NetworkManager's changes also cause one) |
/// | `wifi:?min-interval=5` | at most one request per 5 s (default 60: beaconDB asks to be gentle; for a private service) |
/// | `geoclue:` | GeoClue 2 on the system bus (`CORELOCATION_GEOCLUE_BUS` for tests), accuracy level exact |
/// | `geoclue:?accuracy=city&desktop-id=org.example.App` | … at this level (country, city, neighborhood, street, exact), as this desktop id |
public enum NetworkSourceURL: Sendable, Hashable {
    case ip(IPLocationSource.Configuration)
    case wifi(WiFi)
    case geoclue(GeoClueLocationSource.Configuration)

    public struct WiFi: Sendable, Hashable {
        public enum Fallback: Sendable, Hashable {
            /// The default database, when it exists.
            case defaultDatabase
            case none
            case database(String)
        }
        public var fallback: Fallback
        /// Seconds between two attempts while powered.
        public var interval: Double
        /// Seconds between two requests to the service (`WiFiGeolocator.Configuration.minimumInterval`).
        public var minimumRequestInterval: Double

        public init(fallback: Fallback = .defaultDatabase, interval: Double = 30, minimumRequestInterval: Double = 60) {
            self.fallback = fallback
            self.interval = interval
            self.minimumRequestInterval = minimumRequestInterval
        }
    }

    /// The D-Bus address of NetworkManager's bus: `CORELOCATION_NETWORKMANAGER_BUS` (tests), else the system bus.
    public static func networkManagerBus(environment: [String: String]) -> DBusClient.Bus {
        if let address = environment["CORELOCATION_NETWORKMANAGER_BUS"], !address.isEmpty { return .address(address) }
        return .system
    }

    /// GeoClue's bus: `CORELOCATION_GEOCLUE_BUS` (a D-Bus address, tests), else the system bus.
    public static func geoClueBus(environment: [String: String]) -> DBusClient.Bus {
        if let address = environment["CORELOCATION_GEOCLUE_BUS"], !address.isEmpty { return .address(address) }
        return .system
    }

    /// Reads `spec`; the default database is resolved in `environment`.
    public static func parse(_ spec: ExternalSourceSpec, environment: [String: String]) throws -> NetworkSourceURL {
        let (path, options) = try spec.pathAndOptions()
        func number(_ key: String, _ value: String) throws -> Double {
            guard let number = Double(value), number.isFinite, number > 0 else {
                throw SourceConfigurationError(.invalidURL, "\(spec): \(key) must be a number of seconds > 0")
            }
            return number
        }
        switch spec.scheme {
        case "ip":
            let database = path.isEmpty
                ? IPLocationSource.Configuration.defaultDatabasePath(environment: environment) : path
            var configuration = IPLocationSource.Configuration(
                databasePath: database, address: environment["CORELOCATION_IP_ADDRESS"].flatMap(IPAddress.init))
            for (key, value) in options {
                switch key {
                case "address":
                    guard let address = IPAddress(value) else {
                        throw SourceConfigurationError(.invalidURL, "\(spec): '\(value)' is not an IP address")
                    }
                    configuration.address = address
                case "refresh": configuration.refreshInterval = try number(key, value)
                default:
                    throw SourceConfigurationError(.invalidURL, "\(spec): unknown option '\(key)' (address=, refresh=)")
                }
            }
            return .ip(configuration)
        case "wifi":
            guard path.isEmpty else {
                throw SourceConfigurationError(.invalidURL, "\(spec): wifi: takes options only (wifi:?fallback=none)")
            }
            var wifi = WiFi()
            for (key, value) in options {
                switch (key, value) {
                case ("fallback", "none"), ("fallback", "off"): wifi.fallback = .none
                case ("fallback", "ip"): wifi.fallback = .defaultDatabase
                case ("fallback", _): wifi.fallback = .database(value)
                case ("interval", _): wifi.interval = try number(key, value)
                case ("min-interval", _):
                    guard let seconds = Double(value), seconds.isFinite, seconds >= 0 else {
                        throw SourceConfigurationError(.invalidURL, "\(spec): min-interval must be a number of seconds ≥ 0")
                    }
                    wifi.minimumRequestInterval = seconds
                default:
                    throw SourceConfigurationError(
                        .invalidURL, "\(spec): unknown option '\(key)' (fallback=ip|none|/path.mmdb, interval=, min-interval=)")
                }
            }
            return .wifi(wifi)
        case "geoclue":
            guard path.isEmpty else {
                throw SourceConfigurationError(.invalidURL, "\(spec): geoclue: takes options only (geoclue:?accuracy=city)")
            }
            var configuration = GeoClueLocationSource.Configuration()
            for (key, value) in options {
                switch key {
                case "accuracy":
                    guard let level = GeoClue.AccuracyLevel(name: value) else {
                        throw SourceConfigurationError(
                            .invalidURL, "\(spec): accuracy is one of country, city, neighborhood, street, exact")
                    }
                    configuration.accuracyLevel = level
                case "desktop-id":
                    guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
                        throw SourceConfigurationError(.invalidURL, "\(spec): '\(value)' is not a desktop id")
                    }
                    configuration.desktopId = value
                default:
                    throw SourceConfigurationError(
                        .invalidURL, "\(spec): unknown option '\(key)' (accuracy=, desktop-id=)")
                }
            }
            return .geoclue(configuration)
        default:
            throw SourceConfigurationError(.unsupportedScheme, "\(spec): not a network source")
        }
    }
}

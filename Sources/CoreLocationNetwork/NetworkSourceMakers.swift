import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// Registers the `ip:`, `wifi:` and `geoclue:` source URLs with `SourceMakers` (docs/decisions/0038). locationd and
/// locationctl call `register()` at start; the façade does not link this module (apps get these sources through
/// locationd).
public enum NetworkSourceMakers {
    public static func register() {
        SourceMakers.register(
            SourceMaker(
                schemes: ["ip", "wifi", "geoclue"],
                validate: { _ = try NetworkSourceURL.parse($0, environment: ProcessInfo.processInfo.environment) },
                make: { spec, context in [try make(spec, context: context)] }))
    }

    /// The source for one URL. The source's id is the URL (two `ip:` URLs with different databases are two
    /// sources); its kind is "ip", "wifi" or "geoclue".
    public static func make(_ spec: ExternalSourceSpec, context: SourceMakingContext) throws -> any LocationSource {
        let id = SourceID(spec.description)
        switch try NetworkSourceURL.parse(spec, environment: context.environment) {
        case .ip(let configuration):
            // A missing database is not an error here: the source says so (unavailable) and a file installed
            // later is picked up at the next look-up, as a receiver plugged in later is.
            return IPLocationSource(
                id: id, configuration: configuration, scheduler: context.scheduler, logger: context.logger)
        case .geoclue(let configuration):
            return GeoClueLocationSource(
                id: id, configuration: configuration, bus: NetworkSourceURL.geoClueBus(environment: context.environment),
                scheduler: context.scheduler, logger: context.logger)
        case .wifi(let wifi):
            var fallback: IPLocationSource?
            let database: String?
            switch wifi.fallback {
            case .none: database = nil
            case .database(let path): database = path
            case .defaultDatabase:
                let path = IPLocationSource.Configuration.defaultDatabasePath(environment: context.environment)
                database = FileManager.default.fileExists(atPath: path) ? path : nil
            }
            if let database {
                fallback = IPLocationSource(
                    id: SourceID(spec.description + "#ip"),
                    configuration: .init(
                        databasePath: database,
                        address: context.environment["CORELOCATION_IP_ADDRESS"].flatMap(IPAddress.init)),
                    scheduler: context.scheduler, logger: context.logger)
            }
            let settings = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(environment: context.environment))
            var geolocation = WiFiGeolocator.Configuration()
            geolocation.minimumInterval = wifi.minimumRequestInterval
            let geolocator = WiFiGeolocator(
                configuration: geolocation, settings: settings, transport: AsyncHTTPGeolocateTransport(), scheduler: context.scheduler,
                logger: context.logger)
            return WiFiLocationSource(
                id: id,
                scanner: SystemNetworkManagerScanner(bus: NetworkSourceURL.networkManagerBus(environment: context.environment)),
                geolocator: geolocator, fallback: fallback, scheduler: context.scheduler, interval: wifi.interval,
                logger: context.logger)
        }
    }
}

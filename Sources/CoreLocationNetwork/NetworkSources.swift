import CoreLocationSources
import Foundation
import Logging

/// The network sources a program gets when it names no source of its own (docs/decisions/0025): the IP
/// source when an IP database is installed, and the Wi-Fi source when the user has turned Wi-Fi positioning
/// on (it falls back to the IP source). Neither exists otherwise, so a machine without a database and
/// without consent behaves as before.
public enum NetworkSources {
    public static func make(
        environment: [String: String], scheduler: any Scheduler, logger: Logger
    ) -> [any LocationSource] {
        var sources: [any LocationSource] = []
        let databasePath = IPLocationSource.Configuration.defaultDatabasePath(environment: environment)
        var ip: IPLocationSource?
        if environment["CORELOCATION_IP"] != "off", FileManager.default.fileExists(atPath: databasePath) {
            let address = environment["CORELOCATION_IP_ADDRESS"].flatMap(IPAddress.init)
            let source = IPLocationSource(
                configuration: .init(databasePath: databasePath, address: address), scheduler: scheduler,
                logger: logger)
            ip = source
            sources.append(source)
        }
        let settings = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(environment: environment))
        if settings.load().wifiPositioning {
            let geolocator = WiFiGeolocator(
                settings: settings, transport: AsyncHTTPGeolocateTransport(), scheduler: scheduler, logger: logger)
            sources.append(
                WiFiLocationSource(
                    scanner: SystemNetworkManagerScanner(), geolocator: geolocator, fallback: ip, scheduler: scheduler,
                    logger: logger))
        }
        return sources
    }
}

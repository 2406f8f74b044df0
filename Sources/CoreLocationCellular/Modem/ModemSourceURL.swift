import CoreLocationDBus
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Logging

/// The `modem:` source URL: `modem:` (the modem's GNSS and its cell), `modem:gnss`, `modem:cell`
/// (docs/decisions/0035). The bus: `CORELOCATION_MODEM_BUS` (a D-Bus address, for tests), else the system bus.
public struct ModemSourceURL: Sendable, Hashable {
    public var gnss: Bool
    public var cell: Bool

    /// Nil when `text` is not a `modem:` URL.
    public init?(_ text: String) {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "modem:", "modem":
            gnss = true
            cell = true
        case "modem:gnss":
            gnss = true
            cell = false
        case "modem:cell":
            gnss = false
            cell = true
        default: return nil
        }
    }

    public static func bus(environment: [String: String]) -> DBusClient.Bus {
        if let address = environment["CORELOCATION_MODEM_BUS"], !address.isEmpty { return .address(address) }
        return .system
    }

    /// The sources, sharing one ModemManager session. The cell source resolves through the cell table at its
    /// default place (when there is one) and, with the user's consent, the geolocate service.
    public func makeSources(
        environment: [String: String], scheduler: any Scheduler, logger: Logger
    ) throws -> [any LocationSource] {
        let client: DBusClient
        do {
            client = try DBusClient(bus: Self.bus(environment: environment), logger: logger)
        } catch {
            let missing = (error as? DBusCallError)?.missingPart(service: "ModemManager", package: "modemmanager")
            throw CellError(.databaseMissing, "modem: \(missing ?? "cannot reach ModemManager's bus: \(error)")")
        }
        let session = ModemManagerSession(client: client, scheduler: scheduler, logger: logger)
        var sources: [any LocationSource] = []
        if gnss { sources.append(ModemGNSSSource(session: session, scheduler: scheduler, logger: logger)) }
        if cell {
            let table = try? CellTable(path: CellTable.defaultPath(environment: environment))
            let settings = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(environment: environment))
            let geolocator = settings.load().wifiPositioning
                ? WiFiGeolocator(
                    settings: settings, transport: AsyncHTTPGeolocateTransport(), scheduler: scheduler, logger: logger)
                : nil
            sources.append(
                ModemCellSource(
                    session: session, resolver: CellResolver(table: table, geolocator: geolocator),
                    scheduler: scheduler, logger: logger))
        }
        return sources
    }
}

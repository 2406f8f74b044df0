import ArgumentParser
import CoreLocationNetwork
import Foundation

extension LocationCtl {
    /// `locationctl network`: the user's decisions for network positioning (docs/decisions/0025).
    struct Network: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "network",
            abstract: "Network positioning: turn Wi-Fi positioning on or off, show the IP and Wi-Fi sources.",
            discussion: """
                Wi-Fi positioning sends the access points NetworkManager sees (not hidden or _nomap networks) \
                to an Ichnaea geolocate service (default beaconDB). Nothing is sent until you turn it on; the \
                decision is stored in network.json ($CORELOCATION_NETWORK_SETTINGS, else \
                $XDG_CONFIG_HOME/corelocation/network.json). IP positioning is offline (a MaxMind DB file: \
                scripts/fetch-ip-database.sh) and needs no decision.

                Examples:
                  locationctl network wifi on
                  locationctl network wifi on --url https://api.beacondb.net/v1/geolocate
                  locationctl network wifi off
                  locationctl network status --format json
                """,
            subcommands: [WiFi.self, NetworkStatus.self],
            defaultSubcommand: NetworkStatus.self
        )
    }
}

extension LocationCtl.Network {
    enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }

    struct WiFi: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wifi", abstract: "Turn Wi-Fi positioning on or off (stored).")

        @Argument(help: "on or off.")
        var state: Switch

        @Option(help: ArgumentHelp("The geolocate endpoint (Ichnaea API) to use.", valueName: "url"))
        var url: String?

        func validate() throws {
            if let url {
                guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http",
                    parsed.host != nil
                else { throw ValidationError("--url must be an http(s) URL, got '\(url)'") }
            }
        }

        func run() throws {
            let store = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(
                environment: ProcessInfo.processInfo.environment))
            var settings = store.load()
            settings.wifiPositioning = state == .on
            if let url { settings.geolocateURL = url }
            settings.changed = Date()
            try store.save(settings)
            if settings.wifiPositioning {
                print("Wi-Fi positioning is on: nearby access points go to \(settings.effectiveGeolocateURL)")
            } else {
                print("Wi-Fi positioning is off: nothing is sent")
            }
        }
    }

    struct NetworkStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the network sources' settings and state.")

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        func validate() throws {
            guard format == .text || format == .json else { throw ValidationError("status prints text or json") }
        }

        func run() throws {
            let rows = NetworkSourceRows.inspect(environment: ProcessInfo.processInfo.environment)
            if format == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            } else {
                for row in rows { print(row.text) }
            }
        }
    }
}

/// The network sources' rows for `locationctl sources` and `locationctl network status`: what is configured
/// and what state each is in, without sending anything.
struct NetworkSourceRows: Encodable {
    var kind: String
    var state: String
    var detail: String
    var lastFix: Coordinates?

    struct Coordinates: Encodable {
        var latitude: Double
        var longitude: Double
        var horizontalAccuracy: Double
    }

    var text: String {
        var line = "\(kind): \(state) — \(detail)"
        if let lastFix {
            line += String(format: " (%.4f, %.4f ± %.0f m)", lastFix.latitude, lastFix.longitude,
                lastFix.horizontalAccuracy)
        }
        return line
    }

    static func inspect(environment: [String: String]) -> [NetworkSourceRows] {
        var rows: [NetworkSourceRows] = []
        let path = IPLocationSource.Configuration.defaultDatabasePath(environment: environment)
        let address = environment["CORELOCATION_IP_ADDRESS"].flatMap(IPAddress.init)
        do {
            let database = try MaxMindDatabase(path: path)
            let chosen = try IPAddressChoice.choose(
                configured: address, interfaces: IPAddressChoice.interfaceAddresses())
            if let location = try database.lookup(chosen) {
                rows.append(NetworkSourceRows(
                    kind: "ip", state: "ready", detail: "\(database.databaseType) at \(path), address \(chosen)",
                    lastFix: Coordinates(latitude: location.latitude, longitude: location.longitude,
                        horizontalAccuracy: location.horizontalAccuracy)))
            } else {
                rows.append(NetworkSourceRows(
                    kind: "ip", state: "no fix", detail: "\(path) does not know \(chosen)", lastFix: nil))
            }
        } catch {
            rows.append(NetworkSourceRows(kind: "ip", state: "unavailable", detail: "\(error)", lastFix: nil))
        }
        let settings = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(environment: environment)).load()
        rows.append(NetworkSourceRows(
            kind: "wifi", state: settings.wifiPositioning ? "on" : "off (not consented)",
            detail: settings.wifiPositioning
                ? "access points go to \(settings.effectiveGeolocateURL)"
                : "nothing is sent; turn on with: locationctl network wifi on",
            lastFix: nil))
        return rows
    }
}

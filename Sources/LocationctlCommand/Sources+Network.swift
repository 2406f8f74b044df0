import CoreLocationDBus
import CoreLocationNetwork
import CoreLocationSources
import Foundation

extension SourceReport {
    /// An `ip:`, `wifi:`, `geoclue:` or `modem:` URL (docs/decisions/0038): what the source would answer now,
    /// without sending anything (Wi-Fi shows its consent, not a request).
    static func inspectExternal(_ spec: ExternalSourceSpec, environment: [String: String]) async -> SourceReport {
        let url = spec.description
        switch spec.scheme {
        case "ip", "wifi", "geoclue":
            let parsed: NetworkSourceURL
            do {
                parsed = try NetworkSourceURL.parse(spec, environment: environment)
            } catch {
                return SourceReport(url: url, kind: spec.scheme, reachable: false, state: "invalid", note: "\(error)")
            }
            switch parsed {
            case .ip(let configuration):
                let source = IPLocationSource(configuration: configuration, scheduler: DispatchScheduler())
                do {
                    let location = try source.locate()
                    return SourceReport(
                        url: url, kind: "ip", reachable: true, devices: [configuration.databasePath],
                        lastFix: LastFix(
                            latitude: location.latitude, longitude: location.longitude, altitude: nil,
                            horizontalAccuracy: location.horizontalAccuracy, timestamp: Date()),
                        state: "ready")
                } catch {
                    return SourceReport(
                        url: url, kind: "ip", reachable: false, devices: [configuration.databasePath],
                        state: "unavailable", note: "\(error)")
                }
            case .geoclue(let configuration):
                let (state, note) = await geoClueState(environment: environment)
                return SourceReport(
                    url: url, kind: "geoclue", reachable: state == "running" || state == "activatable",
                    devices: ["desktop id \(configuration.desktopId), accuracy level \(configuration.accuracyLevel)"],
                    state: state, note: note)
            case .wifi:
                let settings = NetworkSettingsStore(path: NetworkSettingsStore.defaultPath(environment: environment)).load()
                return SourceReport(
                    url: url, kind: "wifi", reachable: nil,
                    state: settings.wifiPositioning ? "on" : "off (not consented)",
                    note: settings.wifiPositioning
                        ? "access points go to \(settings.effectiveGeolocateURL)"
                        : "nothing is sent; turn on with: locationctl network wifi on")
            }
        default:
            let made = SourceMakers.shared.maker(for: spec.scheme) != nil
            return SourceReport(
                url: url, kind: spec.scheme, reachable: nil, state: made ? "configured" : "not in this program",
                note: spec.scheme == "modem" ? "modems are listed below" : nil)
        }
    }

    /// Whether GeoClue is on the bus now, or can be started by D-Bus activation.
    static func geoClueState(environment: [String: String]) async -> (String, String?) {
        let client: DBusClient
        do {
            client = try DBusClient(bus: NetworkSourceURL.geoClueBus(environment: environment))
        } catch {
            let missing = (error as? DBusCallError)?.missingPart(service: "GeoClue", package: "geoclue-2.0")
            return ("unavailable", missing ?? "cannot reach the system bus: \(error)")
        }
        defer { client.close() }
        if (try? await client.nameOwner(GeoClue.service)) != nil { return ("running", nil) }
        let activatable = try? await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListActivatableNames")
        if activatable?.first?.elements?.contains(where: { $0.string == GeoClue.service }) == true {
            return ("activatable", "GeoClue starts on the first request")
        }
        return (
            "unavailable",
            "GeoClue is not installed (\(GeoClue.service) is neither running nor activatable; "
                + "Debian package geoclue-2.0)"
        )
    }

    var networkLines: [String] {
        var lines: [String] = []
        if let state { lines.append("  state: \(state)") }
        if let database = devices?.first, kind == "ip" { lines.append("  database: \(database)") }
        if let client = devices?.first, kind == "geoclue" { lines.append("  client: \(client)") }
        if let lastFix, kind == "ip" {
            lines.append(
                String(format: "  fix now: %.4f, %.4f ±%.0f m", lastFix.latitude, lastFix.longitude,
                    lastFix.horizontalAccuracy))
        }
        return lines
    }
}

import CoreLocationCellular
import CoreLocationDBus
import CoreLocationNetwork
import Foundation

/// The modems' rows for `locationctl sources`: what ModemManager says about each (model, state, location
/// capabilities and what is enabled, serving cell), read once without setting anything up (docs/decisions/0035).
/// The bus: `CORELOCATION_MODEM_BUS` (a D-Bus address, for tests), else the system bus.
struct ModemSourceRows: Encodable {
    var modem: String
    var model: String
    var state: String
    var capabilities: String
    var enabled: String
    var servingCell: String?
    var problem: String?

    var text: String {
        var line = "modem \(model): \(state), location \(capabilities) (enabled: \(enabled))"
        if let servingCell { line += ", serving cell \(servingCell)" }
        if let problem { line += " — \(problem)" }
        return line
    }

    /// Nil when ModemManager is not on the bus (no row: most machines have no modem).
    static func inspect(environment: [String: String]) async -> [ModemSourceRows]? {
        guard let client = try? DBusClient(bus: ModemSourceURL.bus(environment: environment)) else { return nil }
        defer { client.close() }
        let service = ModemManagerSession.service
        guard (try? await client.nameOwner(service, timeout: .seconds(2))) != nil,
            let objects = try? await client.managedObjects(
                at: ModemManagerSession.managerPath, on: service, timeout: .seconds(5))
        else { return nil }
        var rows: [ModemSourceRows] = []
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            guard let modem = interfaces[ModemManagerSession.modemInterface] else { continue }
            let model = [modem["Manufacturer"]?.string, modem["Model"]?.string].compactMap { $0 }.joined(separator: " ")
            let state = ModemState(rawValue: Int32(truncatingIfNeeded: modem["State"]?.integer ?? 0))
            let technologies = UInt32(truncatingIfNeeded: modem["AccessTechnologies"]?.integer ?? 0)
            let location = interfaces[ModemManagerSession.locationInterface]
            let capabilities = location?["Capabilities"]?.integer.map {
                ModemLocationCapabilities(rawValue: UInt32(truncatingIfNeeded: $0))
            }
            let enabled = ModemLocationCapabilities(rawValue: UInt32(truncatingIfNeeded: location?["Enabled"]?.integer ?? 0))
            var cell: String?
            for entry in location?["Location"]?.elements ?? [] {
                guard case .dictEntry(let key, let value) = entry, key.integer == 1, let text = value.string else { continue }
                cell = (try? CellIdentity(
                    modemManager: text, radio: CellRadioFromAccessTechnology.radio(technologies)))?.description ?? text
            }
            var problem: String?
            if !state.isUsable { problem = "location needs the modem enabled (\(state))" }
            if capabilities == nil { problem = "no Location interface" }
            if problem == nil {
                // GetLocation asks polkit as Setup does: a refusal here is what the source would meet.
                do {
                    _ = try await client.call(
                        destination: service, path: path, interface: ModemManagerSession.locationInterface,
                        member: "GetLocation", timeout: .seconds(3))
                } catch let error as DBusCallError where error.name?.hasSuffix("Unauthorized") == true
                    || error.name?.hasSuffix("AccessDenied") == true
                {
                    problem = "location not authorized (polkit: install packaging/polkit/50-corelocation-modemmanager.rules)"
                } catch {}
            }
            rows.append(
                ModemSourceRows(
                    modem: path, model: model.isEmpty ? path : model, state: state.description,
                    capabilities: capabilities?.description ?? "none", enabled: enabled.description, servingCell: cell,
                    problem: problem))
        }
        return rows
    }
}

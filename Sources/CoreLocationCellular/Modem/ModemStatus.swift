import CoreLocationNetwork

/// One modem as `locationctl sources` shows it.
public struct ModemStatus: Sendable, Hashable {
    /// The modem's object path (`/org/freedesktop/ModemManager1/Modem/0`).
    public var path: String
    public var manufacturer: String?
    public var model: String?
    public var state: ModemState
    /// `AccessTechnologies` flags.
    public var accessTechnologies: UInt32
    /// What its Location interface offers; nil when it has none (no GNSS and no cell location, or not ready).
    public var capabilities: ModemLocationCapabilities?
    /// What is enabled now (`Enabled`).
    public var enabled: ModemLocationCapabilities
    public var signalsLocation: Bool
    /// The serving cell last reported, if any.
    public var servingCell: CellIdentity?
    /// Why location does not work on this modem (Setup refused, locked SIM, disabled…); nil when it does.
    public var problem: String?

    public init(path: String) {
        self.path = path
        state = .unknown
        accessTechnologies = 0
        enabled = []
        signalsLocation = false
    }

    /// `Model` with the manufacturer, or the path's last component.
    public var name: String {
        let text = [manufacturer, model].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return text.isEmpty ? String(path.split(separator: "/").last ?? "modem") : text
    }
}

/// How the modem sources name the modem of a fix (`FixOriginReporting`): its model and its D-Bus path.
enum ModemFixOrigin {
    static func describe(_ path: String, name: String?) -> String {
        guard let name, !name.isEmpty, name != path else { return path }
        return "\(name) (\(path))"
    }
}

import Logging

/// How `BlueZScanner` listens (`CORELOCATION_BLUEZ_SCAN`, docs/decisions/0051).
public enum BlueZScanMode: String, Sendable, Hashable, CaseIterable {
    /// Passive scanning (an advertisement monitor) where the adapter offers it, discovery elsewhere.
    case automatic = "auto"
    /// Only an advertisement monitor: where the adapter cannot monitor, nothing is scanned (unavailable).
    case passive
    /// Only discovery (`StartDiscovery`, active scanning), as before passive scanning existed. The default:
    /// outside discovery bluetoothd reports a still beacon only when its RSSI moves by 8 dB, which would
    /// starve ranging and end a beacon region's stay early (decision 0051).
    case active

    public static let environmentKey = "CORELOCATION_BLUEZ_SCAN"

    /// The mode `CORELOCATION_BLUEZ_SCAN` names (`auto`, `passive`, `active`); `.active` when it is unset or
    /// names none of them (logged as an error).
    public init(environment: [String: String], logger: Logger) {
        guard let value = environment[Self.environmentKey], !value.isEmpty else {
            self = .active
            return
        }
        guard let mode = BlueZScanMode(rawValue: value) else {
            logger.error("beacons: \(Self.environmentKey)=\(value) is not auto, passive or active; using active")
            self = .active
            return
        }
        self = mode
    }
}

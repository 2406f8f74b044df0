import Logging

/// How `BlueZScanner` listens (`CORELOCATION_BLUEZ_SCAN`, docs/decisions/0051).
public enum BlueZScanMode: String, Sendable, Hashable, CaseIterable {
    /// Passive scanning (an advertisement monitor) where the adapter offers it, with discovery beside it while
    /// something ranges (passively bluetoothd reports a reading only when it moves by 8 dB); discovery
    /// elsewhere. The default.
    case automatic = "auto"
    /// Only an advertisement monitor: where the adapter cannot monitor, nothing is scanned (unavailable).
    case passive
    /// Only discovery (`StartDiscovery`, active scanning), as before passive scanning existed.
    case active

    public static let environmentKey = "CORELOCATION_BLUEZ_SCAN"

    /// The mode `CORELOCATION_BLUEZ_SCAN` names (`auto`, `passive`, `active`); `.automatic` when it is unset or
    /// names none of them (logged as an error).
    public init(environment: [String: String], logger: Logger) {
        guard let value = environment[Self.environmentKey], !value.isEmpty else {
            self = .automatic
            return
        }
        guard let mode = BlueZScanMode(rawValue: value) else {
            logger.error("beacons: \(Self.environmentKey)=\(value) is not auto, passive or active; using auto")
            self = .automatic
            return
        }
        self = mode
    }
}

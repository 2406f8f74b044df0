import Foundation

/// The Settings app's global "Location Services" switch, as a value the in-process runtime (and
/// locationd, for all its apps) applies to each app's authorization.
///
/// Off, as on Apple's platforms: `locationServicesEnabled()` is false, every app reads `.denied`
/// (its own decision is kept and comes back when the switch is turned on), requests neither prompt
/// nor store anything, and the engine — which powers sources only for authorized clients — turns
/// every source off and delivers no fix.
public struct LocationServicesSwitch: Hashable, Codable, Sendable {
    public var isEnabled: Bool

    public init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// The environment variable that turns the switch off for one process: `CORELOCATION_SERVICES`.
    public static let environmentKey = "CORELOCATION_SERVICES"

    /// Reads `CORELOCATION_SERVICES`: `off`, `0`, `false`, `no` or `disabled` (any case) turn the
    /// services off; anything else, or no variable, leaves them on.
    public init(environment: [String: String]) {
        let value = environment[Self.environmentKey]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        isEnabled = !["off", "0", "false", "no", "disabled"].contains(value)
    }

    /// The authorization an app has while the switch is in this position.
    public func apply(to authorization: ClientAuthorization) -> ClientAuthorization {
        guard !isEnabled else { return authorization }
        return ClientAuthorization(level: .denied, accuracy: authorization.accuracy)
    }
}

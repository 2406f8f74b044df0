import Foundation

/// The user's network-positioning decisions, stored in a small JSON file (mode 0600), read again at every use
/// so `locationctl network` changes take effect at once, in a running daemon too.
///
/// Nothing leaves the machine until `wifiPositioning` is true: a missing, unreadable or malformed file means
/// off (docs/decisions/0025).
public struct NetworkSettings: Codable, Sendable, Hashable {
    /// The user's explicit opt-in to sending nearby access points to `geolocateURL`.
    public var wifiPositioning: Bool
    /// An Ichnaea-compatible geolocate endpoint; nil: `defaultGeolocateURL`.
    public var geolocateURL: String?
    /// When the user last changed the decision.
    public var changed: Date?

    /// beaconDB, the community successor of Mozilla Location Service (Ichnaea API).
    public static let defaultGeolocateURL = "https://api.beacondb.net/v1/geolocate"

    public init(wifiPositioning: Bool = false, geolocateURL: String? = nil, changed: Date? = nil) {
        self.wifiPositioning = wifiPositioning
        self.geolocateURL = geolocateURL
        self.changed = changed
    }

    public var effectiveGeolocateURL: String { geolocateURL ?? Self.defaultGeolocateURL }
}

/// Where `NetworkSettings` live: `$CORELOCATION_NETWORK_SETTINGS`, else
/// `$XDG_CONFIG_HOME/corelocation/network.json` (`~/.config/…`); root (locationd) uses
/// `/var/lib/corelocation/network.json`.
public struct NetworkSettingsStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["CORELOCATION_NETWORK_SETTINGS"], !path.isEmpty { return path }
        if getuid() == 0 { return "/var/lib/corelocation/network.json" }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/corelocation/network.json" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.config/corelocation/network.json"
    }

    /// The stored settings; defaults (everything off) when there is no file or it cannot be read.
    public func load() -> NetworkSettings {
        guard let data = FileManager.default.contents(atPath: path),
            let settings = try? JSONDecoder.settings.decode(NetworkSettings.self, from: data)
        else { return NetworkSettings() }
        return settings
    }

    public func save(_ settings: NetworkSettings) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(settings)
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
        guard rename(temporary, path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

extension JSONDecoder {
    fileprivate static var settings: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// A circular region (`CLCircularRegion` and its notify flags, or a `CLMonitor`'s circular condition):
/// centre in degrees (WGS84), radius in metres. `group` is "" for a `CLLocationManager`'s regions and
/// `monitor:NAME` for the conditions of the monitor NAME; absent is "".
public struct WireRegion: Hashable, Sendable {
    public var identifier: String
    public var latitude: Double
    public var longitude: Double
    public var radius: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    public var group: String

    public init(
        identifier: String, latitude: Double, longitude: Double, radius: Double, notifyOnEntry: Bool,
        notifyOnExit: Bool, group: String
    ) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.group = group
    }
}

extension WireRegion: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        identifier = try c.decode(String.self, forKey: "identifier")
        latitude = try c.decode(Double.self, forKey: "latitude")
        longitude = try c.decode(Double.self, forKey: "longitude")
        radius = try c.decode(Double.self, forKey: "radius")
        notifyOnEntry = try c.decode(Bool.self, forKey: "notifyOnEntry")
        notifyOnExit = try c.decode(Bool.self, forKey: "notifyOnExit")
        group = try c.decodeIfPresent(String.self, forKey: "group") ?? ""
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(identifier, forKey: "identifier")
        try c.encode(latitude, forKey: "latitude")
        try c.encode(longitude, forKey: "longitude")
        try c.encode(radius, forKey: "radius")
        try c.encode(notifyOnEntry, forKey: "notifyOnEntry")
        try c.encode(notifyOnExit, forKey: "notifyOnExit")
        try c.encode(group, forKey: "group")
    }
}

/// Where the device is relative to a region.
public enum WireRegionState: String, Codable, Hashable, Sendable {
    case unknown
    case inside
    case outside
}

/// A region with the last state determined for it, as the daemon keeps it.
public struct WireStoredRegion: Hashable, Sendable {
    public var region: WireRegion
    public var state: WireRegionState

    public init(region: WireRegion, state: WireRegionState) {
        self.region = region
        self.state = state
    }
}

extension WireStoredRegion: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        region = try c.decode(WireRegion.self, forKey: "region")
        state = try c.decode(WireRegionState.self, forKey: "state")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(region, forKey: "region")
        try c.encode(state, forKey: "state")
    }
}

/// Why a region is not monitored (`monitoringDidFailFor`).
public enum WireRegionFailure: String, Codable, Hashable, Sendable {
    case emptyIdentifier = "empty-identifier"
    case invalidCenter = "invalid-center"
    case invalidRadius = "invalid-radius"
    case radiusTooLarge = "radius-too-large"
    case tooManyRegions = "too-many-regions"
    case identifierTooLong = "identifier-too-long"
    case denied
    case notMonitored = "not-monitored"
}

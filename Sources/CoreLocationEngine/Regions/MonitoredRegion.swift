import Foundation

/// A circular region an app monitors, in the engine's plain terms (`CLCircularRegion` plus its
/// notification flags).
public struct MonitoredRegion: Hashable, Codable, Sendable {
    /// The longest identifier accepted, UTF-8 bytes (decision 0087); a group (`monitor:NAME`) may be as long
    /// plus its prefix.
    public static let maximumIdentifierBytes = 256

    /// The app's name for the region; unique among the app's regions.
    public var identifier: String
    /// Centre, degrees (WGS84).
    public var latitude: Double
    public var longitude: Double
    /// Radius, metres.
    public var radius: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Who owns the region: "" for `CLLocationManager`'s regions, "monitor:<name>" for a
    /// `CLMonitor`'s conditions. Identifiers are unique within a group; limits count per group.
    public var group: String

    public init(
        identifier: String, latitude: Double, longitude: Double, radius: Double,
        notifyOnEntry: Bool = true, notifyOnExit: Bool = true, group: String = ""
    ) {
        self.group = group
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}

extension MonitoredRegion {
    /// The engine's key for a region: its identifier, qualified by its group.
    static func key(identifier: String, group: String) -> String {
        group.isEmpty ? identifier : group + "\u{1F}" + identifier
    }

    var key: String { Self.key(identifier: identifier, group: group) }
}

/// Where the device is relative to a region (`CLRegionState`'s cases).
///
/// The raw values are stored on disk; renaming a case needs a migration.
public enum RegionState: String, Hashable, Codable, Sendable {
    case unknown
    case inside
    case outside
}

/// A monitored region with the last state the engine determined, as it survives a restart.
public struct StoredRegion: Hashable, Codable, Sendable {
    public var region: MonitoredRegion
    public var state: RegionState

    public init(region: MonitoredRegion, state: RegionState) {
        self.region = region
        self.state = state
    }
}

/// Why the engine refused to monitor a region (`monitoringDidFailFor`). The façade maps
/// `denied` to `kCLErrorRegionMonitoringDenied` and every other case to
/// `kCLErrorRegionMonitoringFailure`, as Apple does.
public enum RegionFailure: String, Hashable, Codable, Sendable {
    /// The identifier is empty.
    case emptyIdentifier
    /// The centre is NaN, infinite or out of range.
    case invalidCenter
    /// The radius is NaN, zero or negative.
    case invalidRadius
    /// The radius exceeds `maximumRegionDistance`.
    case radiusTooLarge
    /// The app already monitors `regionLimit` regions.
    case tooManyRegions
    /// The identifier is longer than `MonitoredRegion.maximumIdentifierBytes` (or the monitor's name is).
    case identifierTooLong
    /// The app is denied or restricted, or holds only reduced accuracy.
    case denied
    /// `requestState` named a region that is not monitored.
    case notMonitored

    /// Words for people (logs, `locationctl`).
    public var message: String {
        switch self {
        case .emptyIdentifier: "the region's identifier is empty"
        case .invalidCenter: "the region's centre is not a valid coordinate"
        case .invalidRadius: "the region's radius is not a positive number of metres"
        case .radiusTooLarge: "the region's radius exceeds maximumRegionMonitoringDistance"
        case .tooManyRegions: "the app already monitors as many regions as it may"
        case .identifierTooLong: "the region's identifier, or its monitor's name, is longer than 256 bytes"
        case .denied: "the app is not authorized for region monitoring (denied, restricted or reduced accuracy)"
        case .notMonitored: "the region is not monitored"
        }
    }
}

/// What the engine tells a client about regions.
public enum RegionNotice: Hashable, Codable, Sendable {
    /// `didStartMonitoringFor`.
    case started(MonitoredRegion)
    /// `monitoringDidFailFor`.
    case failed(MonitoredRegion, RegionFailure)
    /// `didDetermineState`; `fix` is the fix that decided it (nil when answering from memory).
    case determined(MonitoredRegion, RegionState, fix: Fix?)
    /// `didEnterRegion`, with the fix that completed the crossing.
    case entered(MonitoredRegion, fix: Fix)
    /// `didExitRegion`, with the fix that completed the crossing.
    case exited(MonitoredRegion, fix: Fix)
}

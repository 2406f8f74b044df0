import Foundation

/// A beacon region as the daemon keeps it: `CLBeaconRegion`'s identity and notify flags, or a
/// `CLMonitor.BeaconIdentityCondition` of the monitor named `monitor` (decision 0053).
public struct BeaconRegionSpec: Codable, Hashable, Sendable {
    /// The names on the wire (`major`, `minor` and `monitor` absent when nil; `uuid` upper-case text).
    enum CodingKeys: String, CodingKey {
        case identifier, uuid, major, minor, notifyOnEntry, notifyOnExit, monitor
    }

    public var identifier: String
    public var uuid: UUID
    public var major: UInt16?
    public var minor: UInt16?
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// The `CLMonitor`'s name when this is one of its conditions; nil for a `CLBeaconRegion`.
    public var monitor: String?

    public init(
        identifier: String, uuid: UUID, major: UInt16?, minor: UInt16?, notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true, monitor: String? = nil
    ) {
        self.identifier = identifier
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.monitor = monitor
    }

    /// Unique among the app's beacon regions and every monitor's conditions (which may share
    /// identifiers): the identifier, or the monitor's name and the identifier apart by a control
    /// character no name contains in practice.
    public var key: String { Self.key(identifier, monitor: monitor) }

    public static func key(_ identifier: String, monitor: String?) -> String {
        monitor.map { PendingKind.monitor($0) + "\u{1F}" + identifier } ?? identifier
    }
}

/// A beacon condition of a `CLMonitor` with its state (`CLRegionState`'s raw value: 0 unknown,
/// 1 inside, 2 outside): the daemon's answer to `monitorBeaconConditions`, and the payload of a
/// condition's change.
public struct BeaconConditionState: Codable, Hashable, Sendable {
    enum CodingKeys: String, CodingKey {
        case condition, state
    }

    public var condition: BeaconRegionSpec
    public var state: Int

    public init(condition: BeaconRegionSpec, state: Int) {
        self.condition = condition
        self.state = state
    }
}

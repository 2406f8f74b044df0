import Foundation

/// One beacon in one ranging cycle's result (what becomes a `CLBeacon`).
public struct RangedBeacon: Sendable, Hashable {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16
    public var proximity: BeaconProximity
    /// Metres from the path-loss model; −1 when the cycle had no reading.
    public var accuracy: Double
    /// The cycle's mean RSSI, dBm, rounded; 0 when the cycle had no reading.
    public var rssi: Int
    /// Monotonic seconds of the last reading.
    public var lastSeen: Double

    public init(
        uuid: UUID, major: UInt16, minor: UInt16, proximity: BeaconProximity, accuracy: Double, rssi: Int,
        lastSeen: Double
    ) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.proximity = proximity
        self.accuracy = accuracy
        self.rssi = rssi
        self.lastSeen = lastSeen
    }
}

/// A beacon region's state (`CLRegionState`'s raw values).
public enum BeaconRegionState: Int, Sendable, Hashable, Codable {
    case unknown = 0, inside = 1, outside = 2
}

/// What the ranger asks its shell to do.
public enum BeaconRangerAction: Sendable, Hashable {
    /// One ranging cycle's result for a constraint (possibly empty), ordered by proximity.
    case ranged(BeaconConstraint, [RangedBeacon])
    /// A region's state: after `requestState`, and at every transition.
    case determined(identifier: String, BeaconRegionState)
    case entered(identifier: String)
    case exited(identifier: String)
}

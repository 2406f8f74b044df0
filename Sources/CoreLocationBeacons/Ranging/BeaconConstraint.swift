import Foundation

/// Which beacons a ranging request or a beacon region wants: a UUID, optionally narrowed by major, then minor
/// (Apple's `CLBeaconIdentityConstraint` as a plain value). A nil UUID matches every iBeacon/AltBeacon (for
/// `locationctl beacons` without `--uuid`; Apple's API always has one).
public struct BeaconConstraint: Sendable, Hashable, CustomStringConvertible {
    public var uuid: UUID?
    public var major: UInt16?
    /// Only meaningful with a major (Apple has no UUID + minor constraint); ignored without one.
    public var minor: UInt16?

    public init(uuid: UUID?, major: UInt16? = nil, minor: UInt16? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = major == nil ? nil : minor
    }

    /// True for an iBeacon/AltBeacon identity with this UUID (and major, and minor, when given).
    public func matches(_ identity: BeaconIdentity) -> Bool {
        guard case .uuid(let uuid, let major, let minor) = identity else { return false }
        if let wanted = self.uuid, wanted != uuid { return false }
        if let wanted = self.major, wanted != major { return false }
        if let wanted = self.minor, wanted != minor { return false }
        return true
    }

    public var description: String {
        (uuid?.uuidString ?? "any") + (major.map { " \($0)" } ?? "") + (minor.map { " \($0)" } ?? "")
    }
}

import Foundation

/// Which beacons to range: a proximity UUID, optionally narrowed by major and minor values.
///
/// Equal when UUID, major and minor are. Immutable; `@unchecked Sendable` is safe: the stored
/// properties are `let`s of `Sendable` types.
open class CLBeaconIdentityConstraint: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let storedUUID: UUID
    private let storedMajor: CLBeaconMajorValue?
    private let storedMinor: CLBeaconMinorValue?

    /// Every beacon with `uuid`.
    public init(uuid: UUID) {
        self.storedUUID = uuid
        self.storedMajor = nil
        self.storedMinor = nil
        super.init()
    }

    /// Every beacon with `uuid` and `major`.
    public init(uuid: UUID, major: CLBeaconMajorValue) {
        self.storedUUID = uuid
        self.storedMajor = major
        self.storedMinor = nil
        super.init()
    }

    /// The beacons with `uuid`, `major` and `minor`.
    public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {
        self.storedUUID = uuid
        self.storedMajor = major
        self.storedMinor = minor
        super.init()
    }

    open var uuid: UUID { storedUUID }
    /// The major value, or nil for any.
    open var major: CLBeaconMajorValue? { storedMajor }
    /// The minor value, or nil for any.
    open var minor: CLBeaconMinorValue? { storedMinor }

    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLBeaconIdentityConstraint else { return false }
        return other.uuid == uuid && other.major == major && other.minor == minor
    }

    override open var hash: Int {
        var hasher = Hasher()
        hasher.combine(uuid)
        hasher.combine(major)
        hasher.combine(minor)
        return hasher.finalize()
    }

    override open var description: String {
        "CLBeaconIdentityConstraint (UUID:\(uuid.uuidString)"
            + (major.map { ", major:\($0)" } ?? "") + (minor.map { ", minor:\($0)" } ?? "") + ")"
    }

    /// The constraint itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(uuid.uuidString as NSString, forKey: "uuid")
        if let major { coder.encode(Int(major), forKey: "major") }
        if let minor { coder.encode(Int(minor), forKey: "minor") }
    }

    /// Fails when the archive has no valid UUID or a major/minor value out of 0 ... 65535.
    public required init?(coder: NSCoder) {
        guard let text = coder.decodeStringIfPresent(forKey: "uuid"),
            let uuid = UUID(uuidString: text)
        else { return nil }
        func value(_ key: String) -> CLBeaconMajorValue?? {
            guard coder.containsValue(forKey: key) else { return .some(nil) }
            return CLBeaconMajorValue(exactly: coder.decodeInteger(forKey: key)).map { .some($0) }
        }
        guard let major = value("major"), let minor = value("minor") else { return nil }
        self.storedUUID = uuid
        self.storedMajor = major
        self.storedMinor = minor
        super.init()
    }
}

import Foundation
import Synchronization

/// A region defined by nearby iBeacon-style beacons.
///
/// Equal to any region with the same identifier (see `CLRegion`). `@unchecked Sendable` is safe: the
/// constraint is a `let` of an immutable class, and the mutable `notifyEntryStateOnDisplay` lives in a
/// `Mutex`.
open class CLBeaconRegion: CLRegion, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let constraint: CLBeaconIdentityConstraint
    private let entryStateOnDisplay: Mutex<Bool>

    /// The region of the beacons matching `beaconIdentityConstraint`.
    public init(beaconIdentityConstraint: CLBeaconIdentityConstraint, identifier: String) {
        self.constraint = beaconIdentityConstraint
        self.entryStateOnDisplay = Mutex(false)
        super.init(identifier: identifier)
    }

    public convenience init(uuid: UUID, identifier: String) {
        self.init(beaconIdentityConstraint: CLBeaconIdentityConstraint(uuid: uuid), identifier: identifier)
    }

    public convenience init(uuid: UUID, major: CLBeaconMajorValue, identifier: String) {
        self.init(
            beaconIdentityConstraint: CLBeaconIdentityConstraint(uuid: uuid, major: major), identifier: identifier
        )
    }

    public convenience init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String) {
        self.init(
            beaconIdentityConstraint: CLBeaconIdentityConstraint(uuid: uuid, major: major, minor: minor),
            identifier: identifier
        )
    }

    public convenience init(UUID uuid: UUID, identifier: String) {
        self.init(uuid: uuid, identifier: identifier)
    }

    public convenience init(UUID uuid: UUID, major: CLBeaconMajorValue, identifier: String) {
        self.init(uuid: uuid, major: major, identifier: identifier)
    }

    public convenience init(UUID uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String) {
        self.init(uuid: uuid, major: major, minor: minor, identifier: identifier)
    }

    @available(*, deprecated, renamed: "init(uuid:identifier:)")
    public convenience init(proximityUUID: UUID, identifier: String) {
        self.init(uuid: proximityUUID, identifier: identifier)
    }

    @available(*, deprecated, renamed: "init(uuid:major:identifier:)")
    public convenience init(proximityUUID: UUID, major: CLBeaconMajorValue, identifier: String) {
        self.init(uuid: proximityUUID, major: major, identifier: identifier)
    }

    @available(*, deprecated, renamed: "init(uuid:major:minor:identifier:)")
    public convenience init(
        proximityUUID: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String
    ) {
        self.init(uuid: proximityUUID, major: major, minor: minor, identifier: identifier)
    }

    /// The constraint the beacons must satisfy.
    open var beaconIdentityConstraint: CLBeaconIdentityConstraint { constraint }
    open var uuid: UUID { constraint.uuid }
    @available(*, deprecated, renamed: "uuid")
    open var proximityUUID: UUID { constraint.uuid }
    /// The major value, or nil for any.
    open var major: NSNumber? { constraint.major.map { NSNumber(value: $0) } }
    /// The minor value, or nil for any.
    open var minor: NSNumber? { constraint.minor.map { NSNumber(value: $0) } }

    /// Whether the region's state is reported when the user turns the display on. Defaults to false.
    open var notifyEntryStateOnDisplay: Bool {
        get { entryStateOnDisplay.withLock { $0 } }
        set { entryStateOnDisplay.withLock { $0 = newValue } }
    }

    /// The advertisement that makes this machine act as a beacon of this region, in Apple's shape: one
    /// key, `kCBAdvDataAppleBeaconKey`, whose value is 21 bytes — the UUID (16), major and minor
    /// (big-endian, 0 when the region has none), and the measured power at 1 m in dBm (signed byte;
    /// −59 when `measuredPower` is nil, a typical calibration).
    open func peripheralData(withMeasuredPower measuredPower: NSNumber?) -> NSMutableDictionary {
        var bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        for value in [constraint.major ?? 0, constraint.minor ?? 0] {
            bytes.append(UInt8(value >> 8))
            bytes.append(UInt8(value & 0xFF))
        }
        let power = Int8(clamping: measuredPower?.intValue ?? -59)
        bytes.append(UInt8(bitPattern: power))
        let dictionary = NSMutableDictionary()
        dictionary.setObject(NSData(data: Data(bytes)), forKey: NSString(string: "kCBAdvDataAppleBeaconKey"))
        return dictionary
    }

    override open var description: String {
        "CLBeaconRegion (identifier:'\(identifier)', uuid:\(uuid.uuidString)"
            + (constraint.major.map { ", major:\($0)" } ?? ", major:(null)")
            + (constraint.minor.map { ", minor:\($0)" } ?? ", minor:(null)") + ")"
    }

    /// A new region with the same identifier, constraint and flags.
    override open func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLBeaconRegion(beaconIdentityConstraint: constraint, identifier: identifier)
        copy.copyFlags(from: self)
        copy.notifyEntryStateOnDisplay = notifyEntryStateOnDisplay
        return copy
    }

    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(constraint, forKey: "beaconIdentityConstraint")
        coder.encode(notifyEntryStateOnDisplay, forKey: "notifyEntryStateOnDisplay")
    }

    /// Fails when the archive has no valid constraint.
    public required init?(coder: NSCoder) {
        guard
            let constraint = coder.decodeIfPresent(
                CLBeaconIdentityConstraint.self, forKey: "beaconIdentityConstraint"
            )
        else { return nil }
        self.constraint = constraint
        self.entryStateOnDisplay = Mutex(coder.decodeBool(forKey: "notifyEntryStateOnDisplay"))
        super.init(coder: coder)
    }
}

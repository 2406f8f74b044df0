import Foundation

/// A beacon seen while ranging: its identity, how near it is, and how strong its signal was.
///
/// Immutable; `@unchecked Sendable` is safe: the only stored property is a `let` of a `Sendable` struct.
open class CLBeacon: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct Fields: Sendable {
        var uuid: UUID
        var major: CLBeaconMajorValue
        var minor: CLBeaconMinorValue
        var proximity: CLProximity
        var accuracy: CLLocationAccuracy
        var rssi: Int
        var timestamp: Date
    }

    private let fields: Fields

    /// An unranged beacon: nil UUID, major and minor 0, unknown proximity, accuracy −1, RSSI 0,
    /// timestamped now. For test doubles.
    override public init() {
        self.fields = Fields(
            uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), major: 0, minor: 0,
            proximity: .unknown, accuracy: -1, rssi: 0, timestamp: Date()
        )
        super.init()
    }

    /// A beacon the engine ranged.
    package init(
        uuid: UUID,
        major: CLBeaconMajorValue,
        minor: CLBeaconMinorValue,
        proximity: CLProximity,
        accuracy: CLLocationAccuracy,
        rssi: Int,
        timestamp: Date
    ) {
        self.fields = Fields(
            uuid: uuid, major: major, minor: minor, proximity: proximity, accuracy: accuracy, rssi: rssi,
            timestamp: timestamp
        )
        super.init()
    }

    open var uuid: UUID { fields.uuid }
    @available(*, deprecated, renamed: "uuid")
    open var proximityUUID: UUID { fields.uuid }
    open var major: NSNumber { NSNumber(value: fields.major) }
    open var minor: NSNumber { NSNumber(value: fields.minor) }
    /// How near the beacon is.
    open var proximity: CLProximity { fields.proximity }
    /// Estimated distance to the beacon, metres, with one-sigma precision; negative when unknown.
    open var accuracy: CLLocationAccuracy { fields.accuracy }
    /// Received signal strength, dBm; 0 when unknown.
    open var rssi: Int { fields.rssi }
    /// When the beacon was last seen.
    open var timestamp: Date { fields.timestamp }

    override open var description: String {
        "CLBeacon (uuid:\(uuid.uuidString), major:\(fields.major), minor:\(fields.minor), "
            + String(format: "proximity:%ld +/- %.2fm, rssi:%ld)", proximity.rawValue, accuracy, rssi)
    }

    /// The beacon itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(uuid.uuidString as NSString, forKey: "uuid")
        coder.encode(major.intValue, forKey: "major")
        coder.encode(minor.intValue, forKey: "minor")
        coder.encode(proximity.rawValue, forKey: "proximity")
        coder.encode(accuracy, forKey: "accuracy")
        coder.encode(rssi, forKey: "rssi")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
    }

    /// Fails when the archive has no valid UUID, or a major/minor/proximity value out of range.
    public required init?(coder: NSCoder) {
        guard let text = coder.decodeStringIfPresent(forKey: "uuid"),
            let uuid = UUID(uuidString: text),
            let major = CLBeaconMajorValue(exactly: coder.decodeInteger(forKey: "major")),
            let minor = CLBeaconMinorValue(exactly: coder.decodeInteger(forKey: "minor")),
            let proximity = CLProximity(rawValue: coder.decodeInteger(forKey: "proximity"))
        else { return nil }
        self.fields = Fields(
            uuid: uuid, major: major, minor: minor, proximity: proximity,
            accuracy: coder.decodeDouble(forKey: "accuracy"), rssi: coder.decodeInteger(forKey: "rssi"),
            timestamp: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
        )
        super.init()
    }
}

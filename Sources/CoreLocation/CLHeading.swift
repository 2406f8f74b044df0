import Foundation

/// The direction the device points, relative to magnetic and true north, with the raw magnetometer
/// reading.
///
/// Immutable. `@unchecked Sendable` is safe: the only stored property is a `let` of a `Sendable` struct.
/// Subclasses (test doubles commonly override the properties) that add mutable state must protect it.
open class CLHeading: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct Fields: Sendable {
        var magneticHeading: CLLocationDirection
        var trueHeading: CLLocationDirection
        var headingAccuracy: CLLocationDirection
        var x: CLHeadingComponentValue
        var y: CLHeadingComponentValue
        var z: CLHeadingComponentValue
        var timestamp: Date
    }

    private let fields: Fields

    /// An undetermined heading: magnetic heading 0, true heading and accuracy −1 (invalid), field 0,
    /// timestamped now. For subclasses and test doubles.
    override public init() {
        self.fields = Fields(
            magneticHeading: 0, trueHeading: -1, headingAccuracy: -1, x: 0, y: 0, z: 0, timestamp: Date()
        )
        super.init()
    }

    /// A heading from the engine's heading pipeline.
    package init(
        magneticHeading: CLLocationDirection,
        trueHeading: CLLocationDirection,
        headingAccuracy: CLLocationDirection,
        x: CLHeadingComponentValue,
        y: CLHeadingComponentValue,
        z: CLHeadingComponentValue,
        timestamp: Date
    ) {
        self.fields = Fields(
            magneticHeading: magneticHeading, trueHeading: trueHeading, headingAccuracy: headingAccuracy,
            x: x, y: y, z: z, timestamp: timestamp
        )
        super.init()
    }

    /// Degrees clockwise from magnetic north, 0 ..< 360.
    open var magneticHeading: CLLocationDirection { fields.magneticHeading }
    /// Degrees clockwise from true north, 0 ..< 360; negative when it could not be determined.
    open var trueHeading: CLLocationDirection { fields.trueHeading }
    /// The largest likely error of `magneticHeading`, degrees; negative when the heading is invalid.
    open var headingAccuracy: CLLocationDirection { fields.headingAccuracy }
    /// Geomagnetic field along the device's x axis, microteslas.
    open var x: CLHeadingComponentValue { fields.x }
    /// Geomagnetic field along the device's y axis, microteslas.
    open var y: CLHeadingComponentValue { fields.y }
    /// Geomagnetic field along the device's z axis, microteslas.
    open var z: CLHeadingComponentValue { fields.z }
    /// When the heading was measured.
    open var timestamp: Date { fields.timestamp }

    /// Apple's format: `magneticHeading 12.00 trueHeading 14.00 accuracy 5.00 x +1.000 y -2.000 z +3.000 @ <date>`.
    override open var description: String {
        description(locale: .current, timeZone: .current)
    }

    package func description(locale: Locale, timeZone: TimeZone) -> String {
        String(
            format: "magneticHeading %.2f trueHeading %.2f accuracy %.2f x %+.3f y %+.3f z %+.3f",
            magneticHeading, trueHeading, headingAccuracy, x, y, z
        ) + " @ " + describeDate(timestamp, locale: locale, timeZone: timeZone)
    }

    /// The heading itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(magneticHeading, forKey: "magneticHeading")
        coder.encode(trueHeading, forKey: "trueHeading")
        coder.encode(headingAccuracy, forKey: "headingAccuracy")
        coder.encode(x, forKey: "x")
        coder.encode(y, forKey: "y")
        coder.encode(z, forKey: "z")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
    }

    public required init?(coder: NSCoder) {
        self.fields = Fields(
            magneticHeading: coder.decodeDouble(forKey: "magneticHeading"),
            trueHeading: coder.decodeDouble(forKey: "trueHeading"),
            headingAccuracy: coder.decodeDouble(forKey: "headingAccuracy"),
            x: coder.decodeDouble(forKey: "x"),
            y: coder.decodeDouble(forKey: "y"),
            z: coder.decodeDouble(forKey: "z"),
            timestamp: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
        )
        super.init()
    }
}

/// Names a source inside one engine.
public struct SourceID: Hashable, Codable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// What a source promises, so the engine can choose the cheapest set that satisfies its clients.
public struct SourceDescriptor: Hashable, Codable, Sendable {
    public var id: SourceID
    /// A short kind for people: "simulated", "gpsd", "nmea", …
    public var kind: String
    /// The horizontal accuracy the source typically achieves, metres (a radius, as CLLocation's).
    public var expectedAccuracy: Double
    /// Power drawn while the source is on, milliwatts (an estimate; used only to rank sources).
    public var powerCost: Double
    /// True when the source invents positions (simulation, replay).
    public var isSimulated: Bool

    /// The kind of the barometers (`IIOBarometerSource`): they give no positions, only pressure, so
    /// the engine powers them whenever some client wants locations, apart from position sources.
    public static let barometerKind = "barometer"

    /// True for a barometer.
    public var isBarometer: Bool { kind == Self.barometerKind }

    /// The kind of the inertial sources (an IMU's accelerometer and gyroscope, a replayed `.imu.csv`): they give no
    /// positions, only samples for the fusion filter, so the engine powers them while it powers a GNSS-class source
    /// (decision 0095, Wiring).
    public static let inertialKind = "inertial"

    /// True for an inertial source.
    public var isInertial: Bool { kind == Self.inertialKind }

    public init(id: SourceID, kind: String, expectedAccuracy: Double, powerCost: Double, isSimulated: Bool) {
        self.id = id
        self.kind = kind
        self.expectedAccuracy = expectedAccuracy
        self.powerCost = powerCost
        self.isSimulated = isSimulated
    }
}

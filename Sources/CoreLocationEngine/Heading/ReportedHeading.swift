import Foundation

/// A heading a sensor reports ready-made (a GNSS dual-antenna compass, a marine heading sensor), in
/// place of a magnetic field vector the engine would turn into a heading.
///
/// Degrees clockwise from north, [0, 360); nil when the sensor does not give that reference. The
/// engine fills in the other one from the WMM2025 declination at the client's last location
/// (magnetic = true − declination, true = magnetic + declination), or leaves it unknown: true heading
/// −1, magnetic heading −1. Nothing is made up.
public struct ReportedHeading: Sendable, Hashable {
    public var trueHeading: Double?
    public var magneticHeading: Double?

    /// Values outside [0, 360] or not finite are dropped (nil); 360 becomes 0.
    public init(trueHeading: Double? = nil, magneticHeading: Double? = nil) {
        self.trueHeading = Self.valid(trueHeading)
        self.magneticHeading = Self.valid(magneticHeading)
    }

    /// Whether at least one heading is known.
    public var isEmpty: Bool { trueHeading == nil && magneticHeading == nil }

    private static func valid(_ degrees: Double?) -> Double? {
        guard let degrees, degrees.isFinite, degrees >= 0, degrees <= 360 else { return nil }
        return degrees == 360 ? 0 : degrees
    }
}

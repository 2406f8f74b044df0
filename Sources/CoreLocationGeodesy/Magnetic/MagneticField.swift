/// The geomagnetic field at one place and time, in the local geodetic frame (x north, y east, z down).
///
/// Units: intensities in nanotesla, angles in degrees; rates per year.
public struct MagneticField: Sendable, Hashable {
    /// North component X, nT.
    public var north: Double
    /// East component Y, nT.
    public var east: Double
    /// Down component Z, nT (positive when the field points into the Earth, as in the north).
    public var down: Double
    /// Horizontal intensity H = √(X² + Y²), nT.
    public var horizontalIntensity: Double
    /// Total intensity F = √(H² + Z²), nT.
    public var totalIntensity: Double
    /// Declination D, degrees east of true north, in (-180, 180].
    public var declination: Double
    /// Inclination (dip) I, degrees below the horizontal, in [-90, 90].
    public var inclination: Double
    /// Grid variation GV, degrees, for |latitude| ≥ 55° (NOAA's polar-stereographic definition:
    /// D − λ in the north, D + λ in the south, in (-180, 180]); nil elsewhere.
    public var gridVariation: Double?
    /// Yearly rates of change of the same quantities (secular variation).
    public var secularVariation: SecularVariation
    /// The decimal year was outside the model's validity interval: the values are an extrapolation
    /// of the linear secular variation and lose accuracy quickly (NOAA's calculators warn likewise).
    public var isOutsideValidity: Bool

    /// Yearly rates: components and intensities in nT/year, angles in degrees/year.
    public struct SecularVariation: Sendable, Hashable {
        public var north: Double
        public var east: Double
        public var down: Double
        public var horizontalIntensity: Double
        public var totalIntensity: Double
        public var declination: Double
        public var inclination: Double
    }

    /// How close to a magnetic pole the point is, judged by the horizontal intensity as NOAA does:
    /// below 2000 nT a compass is unreliable ("blackout zone"), below 6000 nT use it with caution.
    public var poleProximity: PoleProximity {
        if horizontalIntensity < 2000 { return .blackout }
        if horizontalIntensity < 6000 { return .caution }
        return .none
    }

    public enum PoleProximity: Sendable, Hashable {
        case none, caution, blackout
    }
}

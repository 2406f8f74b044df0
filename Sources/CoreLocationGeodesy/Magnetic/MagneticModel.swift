/// A spherical-harmonic model of Earth's main magnetic field and its secular variation, such as the
/// World Magnetic Model (`MagneticModel.wmm2025`).
///
/// Method: NOAA's WMM technical report (Chulliat et al., "The US/UK World Magnetic Model for
/// 2025–2030", NOAA NCEI, 2024) and its reference C code (`GeomagnetismLibrary.c`): the Gauss
/// coefficients are moved linearly in time from the epoch, the geodetic position is converted to
/// geocentric spherical coordinates on WGS84, the field is summed over Schmidt semi-normalised
/// associated Legendre functions to degree `maxDegree`, then rotated back into the geodetic frame.
/// Points exactly at a geographic pole use NOAA's special summation for the east component.
///
/// Accuracy: the arithmetic reproduces NOAA's own calculator to about 1e-9 nT; the model itself is
/// accurate to about 0.3–0.4° in declination and 150 nT in intensity away from the magnetic poles
/// (the report's error budget), and much worse near them (see `MagneticField.poleProximity`).
public struct MagneticModel: Sendable {
    /// The model's name as printed in its coefficient file, e.g. "WMM-2025".
    public let name: String
    /// Decimal year the main-field coefficients refer to.
    public let epoch: Double
    /// Decimal year at which the model expires; it is valid in `epoch ..< validUntil`.
    public let validUntil: Double
    /// Highest degree (and order) n of the expansion.
    public let maxDegree: Int

    // Coefficients in nT and nT/year, indexed by n(n+1)/2 + m.
    let g: [Double]
    let h: [Double]
    let gDot: [Double]
    let hDot: [Double]
    /// Ratio of the Schmidt semi-normalised to the Gauss-normalised Legendre function, same indexing.
    let schmidt: [Double]

    /// WGS84 semi-major axis, km.
    static let wgs84A = 6378.137
    /// WGS84 flattening.
    static let wgs84F = 1 / 298.257223563
    /// Geomagnetic reference radius of the model, km.
    static let referenceRadius = 6371.2

    /// A model from Gauss coefficients g, h (nT) and their rates (nT/year), each indexed by
    /// n(n+1)/2 + m for 0 ≤ m ≤ n ≤ `maxDegree` (index 0 unused). Arrays shorter than that are padded
    /// with zeros.
    public init(
        name: String, epoch: Double, validUntil: Double, maxDegree: Int,
        g: [Double], h: [Double], gDot: [Double], hDot: [Double]
    ) {
        let degree = max(1, maxDegree)
        let count = (degree + 1) * (degree + 2) / 2
        func padded(_ values: [Double]) -> [Double] {
            Array((values + Array(repeating: 0, count: max(0, count - values.count))).prefix(count))
        }
        self.name = name
        self.epoch = epoch
        self.validUntil = validUntil
        self.maxDegree = degree
        self.g = padded(g)
        self.h = padded(h)
        self.gDot = padded(gDot)
        self.hDot = padded(hDot)
        var schmidt = Array(repeating: 1.0, count: count)
        for n in 1...degree {
            let index = n * (n + 1) / 2
            schmidt[index] = schmidt[(n - 1) * n / 2] * Double(2 * n - 1) / Double(n)
            for m in 1...n {
                let twice = m == 1 ? 2.0 : 1.0
                schmidt[index + m] = schmidt[index + m - 1] * (Double(n - m + 1) * twice / Double(n + m)).squareRoot()
            }
        }
        self.schmidt = schmidt
    }

    /// Whether `decimalYear` lies in the model's validity interval `epoch ..< validUntil`.
    public func isValid(at decimalYear: Double) -> Bool {
        decimalYear >= epoch && decimalYear < validUntil
    }
}

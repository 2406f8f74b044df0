#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension MagneticModel {
    /// Heights accepted by `field`, km above the WGS84 ellipsoid. NOAA specifies WMM from −1 km to
    /// 850 km; we accept a little more on both sides (the expansion stays well-behaved there) and refuse
    /// the rest rather than return numbers nobody should use.
    public static let acceptedHeights: ClosedRange<Double> = -10...1000

    /// Dates further than this many years outside the validity interval are refused.
    public static let acceptedYearsOutsideValidity = 50.0

    /// The field at a geodetic position and date.
    ///
    /// - Parameters:
    ///   - latitude: geodetic latitude, degrees, in [-90, 90].
    ///   - longitude: degrees east, any finite value (reduced modulo 360).
    ///   - heightKilometers: height above the WGS84 ellipsoid, km, in `acceptedHeights`.
    ///   - decimalYear: e.g. 2027.5 (see `decimalYear(year:month:day:)`). Outside the validity interval
    ///     the result is extrapolated and flagged `isOutsideValidity`; more than
    ///     `acceptedYearsOutsideValidity` years outside it is an error.
    /// - Throws: `MagneticModelError` for NaN, infinite or out-of-range input; never traps.
    /// - Complexity: O(`maxDegree`²) with no heap allocation (about 1 µs for degree 12).
    public func field(
        latitude: Double, longitude: Double, heightKilometers: Double, decimalYear: Double
    ) throws(MagneticModelError) -> MagneticField {
        guard latitude.isFinite, abs(latitude) <= 90, longitude.isFinite else {
            throw MagneticModelError(.invalidCoordinate, "Latitude must be in [-90, 90] and longitude finite.")
        }
        guard heightKilometers.isFinite, Self.acceptedHeights.contains(heightKilometers) else {
            throw MagneticModelError(.invalidHeight, "Height must be between -10 km and 1000 km.")
        }
        guard decimalYear.isFinite,
            decimalYear > epoch - Self.acceptedYearsOutsideValidity,
            decimalYear < validUntil + Self.acceptedYearsOutsideValidity
        else {
            throw MagneticModelError(.invalidDate, "Date is outside \(name)'s usable range.")
        }
        let lambda = remainder(longitude, 360) * .pi / 180
        let phi = latitude * .pi / 180
        let spherical = Self.geocentric(phi: phi, heightKilometers: heightKilometers)
        let sums = summation(phig: spherical.phig, lambda: lambda, radius: spherical.radius, t: decimalYear - epoch)

        // Rotate from geocentric to geodetic (NOAA's MAG_RotateMagneticVector).
        let psi = spherical.phig - phi
        let cosPsi = cos(psi)
        let sinPsi = sin(psi)
        let x = sums.x * cosPsi - sums.z * sinPsi
        let y = sums.y
        let z = sums.x * sinPsi + sums.z * cosPsi
        let xDot = sums.xDot * cosPsi - sums.zDot * sinPsi
        let yDot = sums.yDot
        let zDot = sums.xDot * sinPsi + sums.zDot * cosPsi

        let h = (x * x + y * y).squareRoot()
        let f = (h * h + z * z).squareRoot()
        let degrees = 180 / Double.pi
        let declination = atan2(y, x) * degrees
        let hDot = h > 0 ? (x * xDot + y * yDot) / h : 0
        let rates = MagneticField.SecularVariation(
            north: xDot, east: yDot, down: zDot,
            horizontalIntensity: hDot,
            totalIntensity: f > 0 ? (x * xDot + y * yDot + z * zDot) / f : 0,
            declination: h > 0 ? (x * yDot - y * xDot) / (h * h) * degrees : 0,
            inclination: f > 0 ? (h * zDot - z * hDot) / (f * f) * degrees : 0
        )
        return MagneticField(
            north: x, east: y, down: z,
            horizontalIntensity: h, totalIntensity: f,
            declination: declination,
            inclination: atan2(z, h) * degrees,
            gridVariation: Self.gridVariation(declination: declination, latitude: latitude, longitude: longitude),
            secularVariation: rates,
            isOutsideValidity: !isValid(at: decimalYear)
        )
    }

    /// NOAA's polar grid variation (MAG_CalculateGridVariation), degrees in (-180, 180]; nil below 55°.
    static func gridVariation(declination: Double, latitude: Double, longitude: Double) -> Double? {
        let gv: Double
        if latitude >= 55 {
            gv = declination - longitude
        } else if latitude <= -55 {
            gv = declination + longitude
        } else {
            return nil
        }
        let wrapped = remainder(gv, 360)
        return wrapped == -180 ? 180 : wrapped
    }

    /// Geodetic latitude (rad) and height (km) → geocentric latitude (rad) and radius (km) on WGS84
    /// (NOAA's MAG_GeodeticToSpherical).
    static func geocentric(phi: Double, heightKilometers: Double) -> (phig: Double, radius: Double) {
        let e2 = wgs84F * (2 - wgs84F)
        let sinPhi = sin(phi)
        let cosPhi = cos(phi)
        let rc = wgs84A / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (rc + heightKilometers) * cosPhi
        let z = (rc * (1 - e2) + heightKilometers) * sinPhi
        let r = (p * p + z * z).squareRoot()
        return (asin(z / r), r)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Geodesic {
    /// Solves the inverse problem: the shortest geodesic between two points.
    ///
    /// - Parameters: latitudes in degrees in [-90, 90] (outside gives NaN), longitudes in degrees (any
    ///   finite value).
    /// - Returns: the distance in metres and the forward azimuths at both ends in degrees in [-180, 180].
    ///   Any NaN input gives NaN outputs; never traps.
    ///
    /// Method: Karney (2013), section 4 — canonicalise the points, treat meridional and equatorial lines
    /// exactly, otherwise solve lambda12(alpha1) = lon12 by Newton's method (bracketed, so it always
    /// converges), started from the spherical or the astroid solution. Accuracy about 15 nm on WGS84
    /// (series truncation).
    public func inverse(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double)
        -> GeodesicInverse
    {
        let r = inverseCore(latitude1, longitude1, latitude2, longitude2)
        return GeodesicInverse(
            distance: r.s12,
            azimuth1: AngleMath.atan2d(r.salp1, r.calp1),
            azimuth2: AngleMath.atan2d(r.salp2, r.calp2)
        )
    }

    /// The inverse problem, returning the distance in metres and the sines and cosines of the azimuths.
    @usableFromInline
    func inverseCore(_ lat1In: Double, _ lon1: Double, _ lat2In: Double, _ lon2: Double)
        -> (s12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double)
    {
        typealias M = AngleMath
        let tiny = M.tiny
        // lon12 in [-180, 180], computed exactly as a value plus an error term.
        var (lon12, lon12s) = M.diff(lon1, lon2)
        var lonsign: Double = lon12.sign == .minus ? -1 : 1
        lon12 *= lonsign
        lon12s *= lonsign
        let lam12 = lon12 * M.degree
        let (slam12, clam12) = M.sincosde(lon12, lon12s)
        lon12s = (180 - lon12) - lon12s  // the supplementary longitude difference

        // Points very close to the equator are put on it.
        var lat1 = M.round(M.latFix(lat1In))
        var lat2 = M.round(M.latFix(lat2In))
        // Make point 1 the one with the larger |latitude| (a NaN latitude becomes lat1).
        let swapp: Double = abs(lat1) < abs(lat2) || lat2.isNaN ? -1 : 1
        if swapp < 0 {
            lonsign *= -1
            swap(&lat1, &lat2)
        }
        // Make lat1 <= -0.
        let latsign: Double = lat1.sign == .minus ? 1 : -1
        lat1 *= latsign
        lat2 *= latsign
        // Now 0 <= lon12 <= 180, -90 <= lat1 <= -0, lat1 <= lat2 <= -lat1.

        var (sbet1, cbet1) = M.sincosd(lat1)
        sbet1 *= f1
        M.norm(&sbet1, &cbet1)
        cbet1 = Double.maximum(tiny, cbet1)  // cbet1 = +tiny at the poles
        var (sbet2, cbet2) = M.sincosd(lat2)
        sbet2 *= f1
        M.norm(&sbet2, &cbet2)
        cbet2 = Double.maximum(tiny, cbet2)

        // If |bet1| and |bet2| are equal to rounding, force them equal: Lambda12 relies on it.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
        } else {
            if abs(sbet2) == -sbet1 { cbet2 = cbet1 }
        }

        let dn1 = (1 + ep2 * M.sq(sbet1)).squareRoot()
        let dn2 = (1 + ep2 * M.sq(sbet2)).squareRoot()

        var s12x = 0.0
        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var meridian = lat1 == -90 || slam12 == 0

        if meridian {
            // Both points on one meridian (or point 1 at a pole): the geodesic may be the meridian.
            calp1 = clam12; salp1 = slam12  // head to the target longitude
            calp2 = 1; salp2 = 0  // at the target, heading north
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            var sig12 = atan2(Double.maximum(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
            var (s12b, m12b, _) = lengths(
                eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                ssig2: ssig2, csig2: csig2, dn2: dn2, distance: true, reducedLength: true
            )
            // A meridian longer than half way round (m12 < 0) is not shortest: only for prolate ellipsoids.
            if sig12 < 1 || m12b >= 0 {
                if sig12 < 3 * tiny || (sig12 < M.tol0 && (s12b < 0 || m12b < 0)) {
                    sig12 = 0; m12b = 0; s12b = 0
                }
                s12x = s12b * b
            } else {
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (flattening <= 0 || lon12s >= flattening * 180) {
            // Both points on the equator and the equator is the shortest path.
            calp1 = 0; calp2 = 0; salp1 = 1; salp2 = 1
            s12x = equatorialRadius * lam12
        } else if !meridian {
            let start = inverseStart(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                lam12: lam12, slam12: slam12, clam12: clam12
            )
            salp1 = start.salp1
            calp1 = start.calp1
            if start.sig12 >= 0 {
                // Really short line: the spherical solution with a mean dn is exact to rounding.
                salp2 = start.salp2
                calp2 = start.calp2
                s12x = start.sig12 * b * start.dnm
            } else {
                let sol = newton(
                    sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                    slam12: slam12, clam12: clam12, salp1: salp1, calp1: calp1
                )
                salp1 = sol.salp1; calp1 = sol.calp1; salp2 = sol.salp2; calp2 = sol.calp2
                let len = lengths(
                    eps: sol.eps, sig12: sol.sig12, ssig1: sol.ssig1, csig1: sol.csig1, dn1: dn1,
                    ssig2: sol.ssig2, csig2: sol.csig2, dn2: dn2, distance: true, reducedLength: false
                )
                s12x = len.s12b * b
            }
        }

        let s12 = 0 + s12x  // -0 becomes +0

        // Undo the canonicalisation.
        if swapp < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapp * lonsign; calp1 *= swapp * latsign
        salp2 *= swapp * lonsign; calp2 *= swapp * latsign
        return (s12, salp1, calp1, salp2, calp2)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Geodesic {
    /// Solves the direct problem: the point reached after `distance` metres along the geodesic that
    /// leaves (`latitude1`, `longitude1`) with forward azimuth `azimuth1`.
    ///
    /// - Parameters: latitude in degrees in [-90, 90] (outside gives NaN), longitude and azimuth in degrees
    ///   (any finite value), distance in metres (may be negative: walks backwards).
    /// - Returns: latitude in [-90, 90], longitude in [-180, 180] and forward azimuth at the end point in
    ///   [-180, 180], all in degrees. Non-finite input gives NaN in the outputs it reaches; never traps.
    ///
    /// Method: Karney (2013), section 3 — auxiliary sphere, distance converted to arc length with the
    /// reverted series C1' (plus one Newton step when |f| > 0.01), longitude from the I3 series.
    /// Accuracy about 15 nm on WGS84 (series truncation).
    public func direct(latitude1: Double, longitude1: Double, azimuth1: Double, distance: Double) -> GeodesicDirect {
        typealias M = AngleMath
        typealias S = GeodesicSeries
        let azi1 = M.normalize(azimuth1)
        // Rounding tiny azimuths to zero guards against underflow in salp0.
        let (salp1, calp1) = M.sincosd(M.round(azi1))
        var (sbet1, cbet1) = M.sincosd(M.round(M.latFix(latitude1)))
        sbet1 *= f1
        M.norm(&sbet1, &cbet1)
        cbet1 = Double.maximum(M.tiny, cbet1)

        // alp0 is the azimuth at the node (the northward equator crossing).
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        // tan(bet1) = tan(sig1) cos(alp1); tan(omg1) = sin(alp0) tan(sig1). sig = 0 at the node.
        var ssig1 = sbet1
        let somg1 = salp0 * sbet1
        var csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let comg1 = csig1
        M.norm(&ssig1, &csig1)

        let k2 = M.sq(calp0) * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let a1m1 = S.a1m1(eps)
        let c1a = S.c1(eps)
        let b11 = S.sinSeries(ssig1, csig1, c1a)
        let sb11 = sin(b11), cb11 = cos(b11)
        // tau1 = sig1 + B11
        let stau1 = ssig1 * cb11 + csig1 * sb11
        let ctau1 = csig1 * cb11 - ssig1 * sb11
        let c1pa = S.c1p(eps)
        let c3a = c3x.evaluate(eps)
        let a3c = -flattening * salp0 * a3(eps)
        let b31 = S.sinSeries(ssig1, csig1, c3a)

        // Distance to arc length: tau12 = s12 / (b A1), then sigma from tau with the reverted series.
        let tau12 = distance / (b * (1 + a1m1))
        let stau12 = sin(tau12), ctau12 = cos(tau12)
        let b12 = -S.sinSeries(stau1 * ctau12 + ctau1 * stau12, ctau1 * ctau12 - stau1 * stau12, c1pa)
        var sig12 = tau12 - (b12 - b11)
        var ssig12 = sin(sig12), csig12 = cos(sig12)
        if abs(flattening) > 0.01 {
            // The reverted series is inaccurate for |f| > 1/100: correct sig12 with one Newton step.
            let ssig2 = ssig1 * csig12 + csig1 * ssig12
            let csig2 = csig1 * csig12 - ssig1 * ssig12
            let b12n = S.sinSeries(ssig2, csig2, c1a)
            let serr = (1 + a1m1) * (sig12 + (b12n - b11)) - distance / b
            sig12 -= serr / (1 + k2 * M.sq(ssig2)).squareRoot()
            ssig12 = sin(sig12)
            csig12 = cos(sig12)
        }

        // sig2 = sig1 + sig12
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        let sbet2 = calp0 * ssig2  // sin(bet2) = cos(alp0) sin(sig2)
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 {
            // salp0 = 0 and csig2 = 0: break the degeneracy at the pole.
            cbet2 = M.tiny
            csig2 = M.tiny
        }
        // tan(alp0) = cos(sig2) tan(alp2)
        let salp2 = salp0, calp2 = calp0 * csig2
        // tan(omg2) = sin(alp0) tan(sig2); omg12 = omg2 - omg1
        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let lam12 = omg12 + a3c * (sig12 + (S.sinSeries(ssig2, csig2, c3a) - b31))
        let lon12 = lam12 / M.degree
        return GeodesicDirect(
            latitude: M.atan2d(sbet2, f1 * cbet2),
            longitude: M.normalize(M.normalize(longitude1) + M.normalize(lon12)),
            azimuth2: M.atan2d(salp2, calp2)
        )
    }
}

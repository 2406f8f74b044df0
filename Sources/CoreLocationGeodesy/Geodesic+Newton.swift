#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state of the inverse solution once Newton's method has converged.
@usableFromInline
struct InverseSolution {
    @usableFromInline var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
    @usableFromInline var sig12 = 0.0, ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, eps = 0.0

    @inlinable init() {}
}

extension Geodesic {
    /// A starting azimuth for Newton's method (Karney 2013, sections 4–5). For really short lines it
    /// returns the solution itself (sig12 >= 0 with salp2, calp2 and the mean dnm set); otherwise sig12 = -1.
    @inlinable @inline(__always)
    func inverseStart(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        lam12: Double, slam12: Double, clam12: Double
    ) -> (sig12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double, dnm: Double) {
        typealias M = AngleMath
        var sig12 = -1.0, salp2 = 0.0, calp2 = 0.0, dnm = 0.0
        // bet12 = bet2 - bet1 in [0, pi); bet12a = bet2 + bet1 in (-pi, 0].
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        if shortline {
            // sin((bet1 + bet2) / 2)^2
            var sbetm2 = M.sq(sbet1 + sbet2)
            sbetm2 /= sbetm2 + M.sq(cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }

        var salp1 = cbet2 * somg12
        var calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * M.sq(somg12) / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * M.sq(somg12) / (1 - comg12)
        let ssig12 = hypot(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if shortline && ssig12 < etol2 {
            // Really short line.
            salp2 = cbet1 * somg12
            calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? M.sq(somg12) / (1 + comg12) : 1 - comg12)
            M.norm(&salp2, &calp2)
            sig12 = atan2(ssig12, csig12)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * M.sq(cbet1) {
            // The zeroth-order spherical approximation is good enough.
        } else {
            // Nearly antipodal: scale to coordinates (x, y) in which the antipode is at the origin and the
            // singular point at (-1, 0), then solve the astroid problem.
            let x: Double, y: Double, lamscale: Double, betscale: Double
            let lam12x = atan2(-slam12, -clam12)  // lam12 - pi
            if flattening >= 0 {
                // x = dlong, y = dlat
                let k2 = M.sq(sbet1) * ep2
                let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
                lamscale = flattening * cbet1 * a3(eps) * .pi
                betscale = lamscale * cbet1
                x = lam12x / lamscale
                y = sbet12a / betscale
            } else {
                // x = dlat, y = dlong
                let cbet12a = cbet2 * cbet1 - sbet2 * sbet1
                let bet12a = atan2(sbet12a, cbet12a)
                let len = lengths(
                    eps: n, sig12: .pi + bet12a, ssig1: sbet1, csig1: -cbet1, dn1: dn1,
                    ssig2: sbet2, csig2: cbet2, dn2: dn2, distance: false, reducedLength: true
                )
                x = -1 + len.m12b / (cbet1 * cbet2 * len.m0 * .pi)
                betscale = x < -0.01 ? sbet12a / x : -flattening * M.sq(cbet1) * .pi
                lamscale = betscale / cbet1
                y = lam12x / lamscale
            }

            if y > -M.tol1 && x > -1 - M.xthresh {
                // Strip near the cut.
                if flattening >= 0 {
                    salp1 = min(1.0, -x)
                    calp1 = -(1 - M.sq(salp1)).squareRoot()
                } else {
                    calp1 = max(x > -M.tol1 ? 0.0 : -1.0, x)
                    salp1 = (1 - M.sq(calp1)).squareRoot()
                }
            } else {
                // Estimate omg12 from the astroid and use the spherical formula for alp1: fewer Newton
                // steps than estimating alp1 directly (Karney 2013, section 5).
                let k = Self.astroid(x, y)
                let omg12a = lamscale * (flattening >= 0 ? -x * k / (1 + k) : -y * (1 + k) / k)
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * M.sq(somg12) / (1 - comg12)
            }
        }
        // Sanity check on the starting guess; the reversed test lets NaN through.
        if !(salp1 <= 0) {
            M.norm(&salp1, &calp1)
        } else {
            salp1 = 1
            calp1 = 0
        }
        return (sig12, salp1, calp1, salp2, calp2, dnm)
    }

    /// Newton's method on alpha1 for lambda12(alpha1) = lon12, keeping a bracket (alp1a, alp1b) of the
    /// root and bisecting when a Newton step leaves it (Karney 2013, section 4).
    @inlinable @inline(__always)
    func newton(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        slam12: Double, clam12: Double, salp1: Double, calp1: Double
    ) -> InverseSolution {
        typealias M = AngleMath
        let maxit1 = 20
        let maxit2 = maxit1 + Double.significandBitCount + 1 + 10
        var sol = InverseSolution()
        var salp1 = salp1, calp1 = calp1
        var salp1a = M.tiny, calp1a = 1.0, salp1b = M.tiny, calp1b = -1.0
        var tripn = false, tripb = false
        var numit = 0
        while true {
            let (v, dv) = lambda12(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                diffp: numit < maxit1, into: &sol
            )
            // The reversed test lets NaN escape.
            if tripb || !(abs(v) >= (tripn ? 8 : 1) * M.tol0) || numit == maxit2 { break }
            // Shrink the bracket.
            if v > 0 && (numit > maxit1 || calp1 / salp1 > calp1b / salp1b) {
                salp1b = salp1; calp1b = calp1
            } else if v < 0 && (numit > maxit1 || calp1 / salp1 < calp1a / salp1a) {
                salp1a = salp1; calp1a = calp1
            }
            if numit < maxit1 && dv > 0 {
                let dalp1 = -v / dv
                if abs(dalp1) < .pi {
                    let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
                    let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                    if nsalp1 > 0 {
                        calp1 = calp1 * cdalp1 - salp1 * sdalp1
                        salp1 = nsalp1
                        M.norm(&salp1, &calp1)
                        // Where the slope goes to zero convergence is not quadratic: test against epsilon.
                        tripn = abs(v) <= 16 * M.tol0
                        numit += 1
                        continue
                    }
                }
            }
            // dv was not positive or the step left (0, pi): bisect the bracket.
            salp1 = (salp1a + salp1b) / 2
            calp1 = (calp1a + calp1b) / 2
            M.norm(&salp1, &calp1)
            tripn = false
            tripb = abs(salp1a - salp1) + (calp1a - calp1) < M.tolb
                || abs(salp1 - salp1b) + (calp1 - calp1b) < M.tolb
            numit += 1
        }
        sol.salp1 = salp1
        sol.calp1 = calp1
        return sol
    }

    /// lambda12(alpha1) - lon12 and its derivative with respect to alpha1 (Karney 2013, eqs. 5–8, 46);
    /// fills in the geometry of the trial geodesic.
    @inlinable @inline(__always)
    func lambda12(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        salp1: Double, calp1 calp1In: Double, slam120: Double, clam120: Double,
        diffp: Bool, into sol: inout InverseSolution
    ) -> (v: Double, dv: Double) {
        typealias M = AngleMath
        // Break the degeneracy of the equatorial line (handled earlier).
        let calp1 = sbet1 == 0 && calp1In == 0 ? -M.tiny : calp1In
        let salp0 = salp1 * cbet1  // sin(alp1) cos(bet1) = sin(alp0)
        let calp0 = hypot(calp1, salp1 * sbet1)  // > 0

        // tan(bet1) = tan(sig1) cos(alp1); tan(omg1) = sin(alp0) tan(sig1).
        var ssig1 = sbet1, csig1 = calp1 * cbet1
        let somg1 = salp0 * sbet1, comg1 = calp1 * cbet1
        M.norm(&ssig1, &csig1)

        // Enforce the symmetries of |bet2| = -bet1, where the iteration could otherwise be singular.
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2 = cbet2 != cbet1 || abs(sbet2) != -sbet1
            ? (M.sq(calp1 * cbet1)
                + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)))
                .squareRoot() / cbet2
            : abs(calp1)
        var ssig2 = sbet2, csig2 = calp2 * cbet2
        let somg2 = salp0 * sbet2, comg2 = calp2 * cbet2
        M.norm(&ssig2, &csig2)

        // sig12 = sig2 - sig1 and omg12 = omg2 - omg1, limited to [0, pi].
        let sig12 = atan2(Double.maximum(0, csig1 * ssig2 - ssig1 * csig2) + 0, csig1 * csig2 + ssig1 * ssig2)
        let somg12 = Double.maximum(0, comg1 * somg2 - somg1 * comg2) + 0
        let comg12 = comg1 * comg2 + somg1 * somg2
        // eta = omg12 - lam120
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let k2 = M.sq(calp0) * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let c3 = c3x.evaluate(eps)
        let b312 = GeodesicSeries.sinSeries(ssig2, csig2, c3) - GeodesicSeries.sinSeries(ssig1, csig1, c3)
        let domg12 = -flattening * a3(eps) * salp0 * (sig12 + b312)
        let lam12 = eta + domg12

        var dlam12 = 0.0
        if diffp {
            if calp2 == 0 {
                dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                let len = lengths(
                    eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                    ssig2: ssig2, csig2: csig2, dn2: dn2, distance: false, reducedLength: true
                )
                dlam12 = len.m12b * (f1 / (calp2 * cbet2))
            }
        }
        sol.salp2 = salp2
        sol.calp2 = calp2
        sol.sig12 = sig12
        sol.ssig1 = ssig1
        sol.csig1 = csig1
        sol.ssig2 = ssig2
        sol.csig2 = csig2
        sol.eps = eps
        return (lam12, dlam12)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Geodesic {
    /// Distance s12/b, reduced length m12/b and the secular coefficient m0 of the reduced length for the
    /// arc sigma1 → sigma2 (Karney 2013, eqs. 7, 38, 40–42). Only the requested quantities are computed;
    /// the flags are compile-time constants at every call site, so the unused branches fold away.
    @inlinable @inline(__always)
    func lengths(
        eps: Double, sig12: Double,
        ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double,
        distance: Bool, reducedLength: Bool
    ) -> (s12b: Double, m12b: Double, m0: Double) {
        typealias S = GeodesicSeries
        var s12b = 0.0, m12b = 0.0, m0 = 0.0
        var a1 = S.a1m1(eps)
        let ca = S.c1(eps)
        if distance && !reducedLength {
            a1 += 1
            let b1 = S.sinSeries(ssig2, csig2, ca) - S.sinSeries(ssig1, csig1, ca)
            s12b = a1 * (sig12 + b1)
            return (s12b, 0, 0)
        }
        var a2 = S.a2m1(eps)
        var cb = S.c2(eps)
        m0 = a1 - a2
        a2 += 1
        a1 += 1
        let j12: Double
        if distance {
            let b1 = S.sinSeries(ssig2, csig2, ca) - S.sinSeries(ssig1, csig1, ca)
            s12b = a1 * (sig12 + b1)
            let b2 = S.sinSeries(ssig2, csig2, cb) - S.sinSeries(ssig1, csig1, cb)
            j12 = m0 * sig12 + (a1 * b1 - a2 * b2)
        } else {
            // Only the combination A1 C1 - A2 C2 is needed: one series instead of two.
            cb = (
                a1 * ca.0 - a2 * cb.0, a1 * ca.1 - a2 * cb.1, a1 * ca.2 - a2 * cb.2,
                a1 * ca.3 - a2 * cb.3, a1 * ca.4 - a2 * cb.4, a1 * ca.5 - a2 * cb.5
            )
            j12 = m0 * sig12 + (S.sinSeries(ssig2, csig2, cb) - S.sinSeries(ssig1, csig1, cb))
        }
        // The parentheses around csig1 * ssig2 and ssig1 * csig2 make the cancellation exact for
        // coincident points.
        m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (s12b, m12b, m0)
    }

    /// The positive root k of k^4 + 2k^3 - (x^2 + y^2 - 1)k^2 - 2y^2 k - y^2 = 0 (Karney 2013, eq. 55),
    /// used to start Newton's method for nearly antipodal points.
    @inlinable
    static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = x * x, q = y * y
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else {
            // y = 0 with |x| <= 1: for small y the root is |y| / sqrt(1 - x^2) -> 0.
            return 0
        }
        let s = p * q / 4  // r^3 * s
        let r2 = r * r
        let r3 = r * r2
        // The discriminant of the quadratic for T^3; zero on the evolute p^(1/3) + q^(1/3) = 1.
        let disc = s * (s + 2 * r3)
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            // Choose the sign of the root that maximises |T^3| to avoid cancellation.
            t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
            let t = cbrt(t3)  // T = r t
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            // T is complex, but u is real.
            let ang = atan2((-disc).squareRoot(), -(s + r3))
            u += 2 * r * cos(ang / 3)
        }
        let v = (u * u + q).squareRoot()  // positive
        let uv = u < 0 ? q / (v - u) : u + v  // u + v without cancellation, positive
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }
}

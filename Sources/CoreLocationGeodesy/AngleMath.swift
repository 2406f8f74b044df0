#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Careful angle arithmetic in degrees, after GeographicLib's `Math` class.
///
/// Angles are reduced exactly in degrees (with `remquo`/`remainder`) before any conversion to radians,
/// so that, e.g., `sincosd(30)` gives sin = 0.5 exactly and quadrant boundaries are hit exactly. These
/// functions follow C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87 (2013), and the
/// sign-of-zero conventions of GeographicLib 2.x, so our results agree with GeographicLib bit for bit in
/// the common case.
@usableFromInline
enum AngleMath {
    @inlinable static var degree: Double { .pi / 180 }
    /// sqrt of the smallest normal double (2^-511): used to keep cosines of latitude away from zero.
    @inlinable static var tiny: Double { 0x1p-511 }
    /// Machine epsilon, 2^-52.
    @inlinable static var tol0: Double { 0x1p-52 }
    /// sqrt(epsilon) = 2^-26.
    @inlinable static var tol2: Double { 0x1p-26 }
    @inlinable static var tol1: Double { 200 * 0x1p-52 }
    @inlinable static var tolb: Double { 0x1p-52 }
    @inlinable static var xthresh: Double { 1000 * 0x1p-26 }

    @inlinable @inline(__always)
    static func sq(_ x: Double) -> Double { x * x }

    /// Error-free sum: returns (s, t) with s = round(u + v) and u + v = s + t exactly.
    @inlinable @inline(__always)
    static func sum(_ u: Double, _ v: Double) -> (s: Double, t: Double) {
        let s = u + v
        var up = s - v
        var vpp = s - up
        up -= u
        vpp -= v
        return (s, s != 0 ? 0 - (up + vpp) : s)
    }

    /// Reduces an angle to [-180, 180], keeping the sign of the input for ±180.
    @inlinable
    static func normalize(_ x: Double) -> Double {
        let y = remainder(x, 360)
        return abs(y) == 180 ? Double(signOf: x, magnitudeOf: 180) : y
    }

    /// Latitudes outside [-90, 90] become NaN (as in GeographicLib).
    @inlinable @inline(__always)
    static func latFix(_ x: Double) -> Double { abs(x) > 90 ? .nan : x }

    /// The difference y - x reduced to [-180, 180], computed exactly as a rounded value `d` plus the
    /// rounding error `e`. ±180 carries the sign that says which way round the difference goes.
    @inlinable
    static func diff(_ x: Double, _ y: Double) -> (d: Double, e: Double) {
        var (d, t) = sum(remainder(-x, 360), remainder(y, 360))
        (d, t) = sum(remainder(d, 360), t)
        if d == 0 || abs(d) == 180 {
            d = Double(signOf: t == 0 ? y - x : -t, magnitudeOf: d)
        }
        return (d, t)
    }

    /// Rounds tiny values so that anything smaller than about 1/16 of an ulp of 1/16 becomes exact zero,
    /// which keeps points a hair from the equator or a pole on it.
    @inlinable @inline(__always)
    static func round(_ x: Double) -> Double {
        let z = 1.0 / 16.0
        var y = abs(x)
        let w = z - y
        y = w > 0 ? z - w : y
        return Double(signOf: x, magnitudeOf: y)
    }

    @inlinable @inline(__always)
    static func quadrant(_ s: Double, _ c: Double, _ q: Int, _ x: Double) -> (sin: Double, cos: Double) {
        var sinx: Double, cosx: Double
        switch q & 3 {
        case 0: sinx = s; cosx = c
        case 1: sinx = c; cosx = -s
        case 2: sinx = -s; cosx = -c
        default: sinx = -c; cosx = s
        }
        cosx += 0  // turns -0 into +0
        if sinx == 0 { sinx = Double(signOf: x, magnitudeOf: sinx) }
        return (sinx, cosx)
    }

    /// sin and cos of an angle in degrees, reduced exactly to [-45, 45] first.
    @inlinable
    static func sincosd(_ x: Double) -> (sin: Double, cos: Double) {
        let (r0, q) = remquo(x, 90)
        let r = r0 * degree
        return quadrant(sin(r), cos(r), q, x)
    }

    /// sin and cos of (x + t) degrees where t is a small correction (the error term of `diff`).
    @inlinable
    static func sincosde(_ x: Double, _ t: Double) -> (sin: Double, cos: Double) {
        let (r0, q) = remquo(x, 90)
        let r = round(r0 + t) * degree
        return quadrant(sin(r), cos(r), q, x)
    }

    /// atan2 in degrees, result in [-180, 180], computed with the atan2 argument in [-45, 45].
    @inlinable
    static func atan2d(_ y: Double, _ x: Double) -> Double {
        var x = x, y = y, q = 0
        if abs(y) > abs(x) { swap(&x, &y); q = 2 }
        if x.sign == .minus { x = -x; q += 1 }
        var ang = atan2(y, x) / degree
        switch q {
        case 1: ang = Double(signOf: y, magnitudeOf: 180) - ang
        case 2: ang = 90 - ang
        case 3: ang = -90 + ang
        default: break
        }
        return ang
    }

    /// Normalises (sin, cos) to unit length.
    @inlinable @inline(__always)
    static func norm(_ s: inout Double, _ c: inout Double) {
        let r = hypot(s, c)
        s /= r
        c /= r
    }
}

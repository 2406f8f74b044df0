/// Six Fourier coefficients c[1...6] of a sine series (index 0 of the paper's arrays is unused).
@usableFromInline
typealias Series6 = (Double, Double, Double, Double, Double, Double)

/// Five Fourier coefficients c[1...5] (the C3 series for the longitude integral).
@usableFromInline
typealias Series5 = (Double, Double, Double, Double, Double)

/// The series in the third flattening n and in eps = k² / (2(1 + √(1 + k²)) + k²) of
/// C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013), eqs. (17)–(24) and (25),
/// truncated at order 6 as in GeographicLib's default build. The rational coefficients are the paper's
/// (also tabulated in GeographicLib's `geodesic.c`); the truncation error in distance is about 15 nm
/// for WGS84 and stays below 30 nm for |f| ≤ 1/50.
///
/// Everything here is unrolled into straight-line Horner and Clenshaw code: no arrays, no loops.
@usableFromInline
enum GeodesicSeries {
    /// A1 - 1, the scale factor of the distance integral I1, eq. (17).
    @inlinable @inline(__always)
    static func a1m1(_ eps: Double) -> Double {
        let eps2 = eps * eps
        let t = (((eps2 + 4) * eps2 + 64) * eps2 + 0) / 256
        return (t + eps) / (1 - eps)
    }

    /// C1[l], the Fourier coefficients of I1, eq. (18).
    @inlinable @inline(__always)
    static func c1(_ eps: Double) -> Series6 {
        let eps2 = eps * eps
        var d = eps
        let c1 = d * ((-1 * eps2 + 6) * eps2 - 16) / 32
        d *= eps
        let c2 = d * ((-9 * eps2 + 64) * eps2 - 128) / 2048
        d *= eps
        let c3 = d * (9 * eps2 - 16) / 768
        d *= eps
        let c4 = d * (3 * eps2 - 5) / 512
        d *= eps
        let c5 = d * -7 / 1280
        d *= eps
        let c6 = d * -7 / 2048
        return (c1, c2, c3, c4, c5, c6)
    }

    /// C1'[l], the coefficients of the reverted series giving sigma from tau, eq. (21).
    @inlinable @inline(__always)
    static func c1p(_ eps: Double) -> Series6 {
        let eps2 = eps * eps
        var d = eps
        let c1 = d * ((205 * eps2 - 432) * eps2 + 768) / 1536
        d *= eps
        let c2 = d * ((4005 * eps2 - 4736) * eps2 + 3840) / 12288
        d *= eps
        let c3 = d * (-225 * eps2 + 116) / 384
        d *= eps
        let c4 = d * (-7173 * eps2 + 2695) / 7680
        d *= eps
        let c5 = d * 3467 / 7680
        d *= eps
        let c6 = d * 38081 / 61440
        return (c1, c2, c3, c4, c5, c6)
    }

    /// A2 - 1, the scale factor of I2 (reduced length), eq. (42).
    @inlinable @inline(__always)
    static func a2m1(_ eps: Double) -> Double {
        let eps2 = eps * eps
        let t = (((-11 * eps2 - 28) * eps2 - 192) * eps2 + 0) / 256
        return (t - eps) / (1 + eps)
    }

    /// C2[l], the Fourier coefficients of I2, eq. (43).
    @inlinable @inline(__always)
    static func c2(_ eps: Double) -> Series6 {
        let eps2 = eps * eps
        var d = eps
        let c1 = d * ((eps2 + 2) * eps2 + 16) / 32
        d *= eps
        let c2 = d * ((35 * eps2 + 64) * eps2 + 384) / 2048
        d *= eps
        let c3 = d * (15 * eps2 + 80) / 768
        d *= eps
        let c4 = d * (7 * eps2 + 35) / 512
        d *= eps
        let c5 = d * 63 / 1280
        d *= eps
        let c6 = d * 77 / 2048
        return (c1, c2, c3, c4, c5, c6)
    }

    /// Coefficients of A3 as a polynomial in eps (highest power first), for third flattening n, eq. (24).
    @inlinable
    static func a3x(n: Double) -> Series6 {
        (
            -3.0 / 128,
            (-2 * n - 3) / 64,
            ((-1 * n - 3) * n - 1) / 16,
            ((3 * n - 1) * n - 2) / 8,
            (n - 1) / 2,
            1
        )
    }

    /// Coefficients of C3[l] as polynomials in eps for third flattening n, eq. (25), in the layout
    /// GeographicLib uses: C3[1] (5 terms, eps^5...eps^1), C3[2] (4), C3[3] (3), C3[4] (2), C3[5] (1).
    @inlinable
    static func c3x(n: Double) -> C3Coefficients {
        C3Coefficients(
            c1: (3.0 / 128, (2 * n + 5) / 128, ((-1 * n + 3) * n + 3) / 64, ((-1 * n + 0) * n + 1) / 8,
                 (-1 * n + 1) / 4),
            c2: (5.0 / 256, (n + 3) / 128, ((-3 * n - 2) * n + 3) / 64, ((n - 3) * n + 2) / 32),
            c3: (7.0 / 512, (-10 * n + 9) / 384, ((5 * n - 9) * n + 5) / 192),
            c4: (7.0 / 512, (-14 * n + 7) / 512),
            c5: 21.0 / 2560
        )
    }

    /// Clenshaw summation of sum(c[l] sin(2 l x), l = 1...6) given sin x and cos x.
    @inlinable @inline(__always)
    static func sinSeries(_ sinx: Double, _ cosx: Double, _ c: Series6) -> Double {
        let ar = 2 * (cosx - sinx) * (cosx + sinx)  // 2 cos 2x
        var y0 = 0.0, y1 = 0.0
        y1 = ar * y0 - y1 + c.5
        y0 = ar * y1 - y0 + c.4
        y1 = ar * y0 - y1 + c.3
        y0 = ar * y1 - y0 + c.2
        y1 = ar * y0 - y1 + c.1
        y0 = ar * y1 - y0 + c.0
        return 2 * sinx * cosx * y0
    }

    /// Clenshaw summation of sum(c[l] sin(2 l x), l = 1...5) given sin x and cos x.
    @inlinable @inline(__always)
    static func sinSeries(_ sinx: Double, _ cosx: Double, _ c: Series5) -> Double {
        let ar = 2 * (cosx - sinx) * (cosx + sinx)
        var y0 = c.4, y1 = 0.0
        y1 = ar * y0 - y1 + c.3
        y0 = ar * y1 - y0 + c.2
        y1 = ar * y0 - y1 + c.1
        y0 = ar * y1 - y0 + c.0
        return 2 * sinx * cosx * y0
    }
}

/// The ellipsoid-dependent coefficients of the C3 series, precomputed once per ellipsoid.
@usableFromInline
struct C3Coefficients: Sendable {
    @usableFromInline let c1: (Double, Double, Double, Double, Double)
    @usableFromInline let c2: (Double, Double, Double, Double)
    @usableFromInline let c3: (Double, Double, Double)
    @usableFromInline let c4: (Double, Double)
    @usableFromInline let c5: Double

    @inlinable
    init(
        c1: (Double, Double, Double, Double, Double), c2: (Double, Double, Double, Double),
        c3: (Double, Double, Double), c4: (Double, Double), c5: Double
    ) {
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.c4 = c4
        self.c5 = c5
    }

    /// C3[l](eps) for l = 1...5.
    @inlinable @inline(__always)
    func evaluate(_ eps: Double) -> Series5 {
        var mult = eps
        let r1 = mult * ((((c1.0 * eps + c1.1) * eps + c1.2) * eps + c1.3) * eps + c1.4)
        mult *= eps
        let r2 = mult * (((c2.0 * eps + c2.1) * eps + c2.2) * eps + c2.3)
        mult *= eps
        let r3 = mult * ((c3.0 * eps + c3.1) * eps + c3.2)
        mult *= eps
        let r4 = mult * (c4.0 * eps + c4.1)
        mult *= eps
        let r5 = mult * c5
        return (r1, r2, r3, r4, r5)
    }
}

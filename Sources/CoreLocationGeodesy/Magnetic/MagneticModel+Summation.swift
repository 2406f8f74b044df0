#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension MagneticModel {
    /// Field components in the geocentric spherical frame (x north, y east, z down), nT, and their
    /// rates, nT/year.
    struct SphericalSums {
        var x = 0.0, y = 0.0, z = 0.0
        var xDot = 0.0, yDot = 0.0, zDot = 0.0
    }

    /// Sums the expansion at geocentric latitude `phig`, longitude `lambda` (rad), radius (km) and
    /// `t` years after the epoch (NOAA's MAG_Summation and MAG_SecVarSummation with MAG_PcupLow).
    /// Scratch space lives on the stack for the call.
    func summation(phig: Double, lambda: Double, radius: Double, t: Double) -> SphericalSums {
        let nMax = maxDegree
        let terms = g.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * terms + 3 * (nMax + 1)) { scratch in
            guard let base = scratch.baseAddress else { return SphericalSums() }
            let pcup = base
            let dpcup = base + terms
            let radiusPower = base + 2 * terms
            let cosM = radiusPower + (nMax + 1)
            let sinM = cosM + (nMax + 1)
            legendre(sinLatitude: sin(phig), pcup: pcup, dpcup: dpcup)

            let ratio = Self.referenceRadius / radius
            var power = ratio * ratio
            cosM[0] = 1
            sinM[0] = 0
            let cosLambda = cos(lambda)
            let sinLambda = sin(lambda)
            for n in 0...nMax {
                radiusPower[n] = power
                power *= ratio
                if n >= 1 {
                    cosM[n] = cosM[n - 1] * cosLambda - sinM[n - 1] * sinLambda
                    sinM[n] = cosM[n - 1] * sinLambda + sinM[n - 1] * cosLambda
                }
            }

            var sums = SphericalSums()
            for n in 1...nMax {
                let rp = radiusPower[n]
                let np1 = Double(n + 1)
                var index = n * (n + 1) / 2
                for m in 0...n {
                    let gNow = g[index] + t * gDot[index]
                    let hNow = h[index] + t * hDot[index]
                    let cosTerm = gNow * cosM[m] + hNow * sinM[m]
                    let sinTerm = gNow * sinM[m] - hNow * cosM[m]
                    let cosRate = gDot[index] * cosM[m] + hDot[index] * sinM[m]
                    let sinRate = gDot[index] * sinM[m] - hDot[index] * cosM[m]
                    let p = pcup[index]
                    let dp = dpcup[index]
                    let dm = Double(m)
                    sums.z -= rp * cosTerm * np1 * p
                    sums.y += rp * sinTerm * dm * p
                    sums.x -= rp * cosTerm * dp
                    sums.zDot -= rp * cosRate * np1 * p
                    sums.yDot += rp * sinRate * dm * p
                    sums.xDot -= rp * cosRate * dp
                    index += 1
                }
            }
            let cosPhi = cos(phig)
            if abs(cosPhi) > 1e-10 {
                sums.y /= cosPhi
                sums.yDot /= cosPhi
            } else {
                // At a geographic pole the east component is 0/0; NOAA takes its limit with m = 1 terms.
                let special = poleEastComponent(
                    sinLatitude: sin(phig), radiusPower: radiusPower, cos1: cosM[1],
                    sin1: sinM[1], t: t)
                sums.y = special.y
                sums.yDot = special.yDot
            }
            return sums
        }
    }

    /// Schmidt semi-normalised associated Legendre functions P(n, m)(x) and their derivatives with
    /// respect to latitude, x = sin(latitude) (NOAA's MAG_PcupLow; stable to degree ~16).
    private func legendre(
        sinLatitude x: Double, pcup: UnsafeMutablePointer<Double>,
        dpcup: UnsafeMutablePointer<Double>
    ) {
        let z = ((1 - x) * (1 + x)).squareRoot()
        pcup[0] = 1
        dpcup[0] = 0
        for n in 1...maxDegree {
            let row = n * (n + 1) / 2
            let previous = (n - 1) * n / 2
            for m in 0...n {
                let index = row + m
                if n == m {
                    let i1 = previous + m - 1
                    pcup[index] = z * pcup[i1]
                    dpcup[index] = z * dpcup[i1] + x * pcup[i1]
                } else if n == 1 || m > n - 2 {
                    let i2 = previous + m
                    pcup[index] = x * pcup[i2]
                    dpcup[index] = x * dpcup[i2] - z * pcup[i2]
                } else {
                    let i1 = (n - 2) * (n - 1) / 2 + m
                    let i2 = previous + m
                    let k = Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3))
                    pcup[index] = x * pcup[i2] - k * pcup[i1]
                    dpcup[index] = x * dpcup[i2] - z * pcup[i2] - k * dpcup[i1]
                }
            }
        }
        // Gauss → Schmidt; the derivative's sign flips from co-latitude to latitude.
        for index in 0..<g.count {
            pcup[index] *= schmidt[index]
            dpcup[index] = -dpcup[index] * schmidt[index]
        }
    }

    /// East component (and its rate) exactly at a pole (NOAA's MAG_SummationSpecial and
    /// MAG_SecVarSummationSpecial), nT and nT/year.
    private func poleEastComponent(
        sinLatitude: Double, radiusPower: UnsafeMutablePointer<Double>,
        cos1: Double, sin1: Double, t: Double
    ) -> (y: Double, yDot: Double) {
        var previous2 = 0.0
        var previous1 = 1.0  // P(n-2, 1), P(n-1, 1) up to normalisation
        var norm1 = 1.0
        var y = 0.0
        var yDot = 0.0
        for n in 1...maxDegree {
            let index = n * (n + 1) / 2 + 1
            let norm2 = norm1 * Double(2 * n - 1) / Double(n)
            let norm3 = norm2 * (Double(2 * n) / Double(n + 1)).squareRoot()
            norm1 = norm2
            let current: Double
            if n == 1 {
                current = previous1
            } else {
                let k = Double((n - 1) * (n - 1) - 1) / Double((2 * n - 1) * (2 * n - 3))
                current = sinLatitude * previous1 - k * previous2
            }
            previous2 = previous1
            previous1 = current
            let gNow = g[index] + t * gDot[index]
            let hNow = h[index] + t * hDot[index]
            y += radiusPower[n] * (gNow * sin1 - hNow * cos1) * current * norm3
            yDot += radiusPower[n] * (gDot[index] * sin1 - hDot[index] * cos1) * current * norm3
        }
        return (y, yDot)
    }
}

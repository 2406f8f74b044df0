import Foundation
import CoreLocationEngine

/// Hard- and soft-iron correction of a magnetometer: corrected = W · (raw − offset), µT.
///
/// Method: least-squares fit of a general ellipsoid xᵀAx + bᵀx = 1 (A symmetric: 9 unknowns) to raw
/// samples taken while the device is turned through many orientations — the locus of a constant field
/// seen through a constant offset (hard iron) and a linear distortion (soft iron). The centre
/// c = −½A⁻¹b is the offset; with M = A / (1 + cᵀAc) the ellipsoid is (x − c)ᵀM(x − c) = 1, and
/// W = r·M^½ (the symmetric square root, by Jacobi eigen-decomposition) maps it onto a sphere of
/// radius r, the geometric mean of its semi-axes, so the corrected field keeps the sensor's mean
/// strength. The symmetric root adds no rotation: a symmetric soft-iron distortion is undone exactly;
/// an asymmetric one leaves a fixed rotation no fit from magnetometer data alone can see.
///
/// Accuracy: `headingAccuracy` is twice the RMS misfit of the corrected samples to the sphere, as an
/// angle: asin(2·rms / r) in degrees, at least 2°.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// Hard-iron offset, µT.
    public var offset: DeviceVector
    /// Rows of the soft-iron correction W (dimensionless).
    public var softIron: [DeviceVector]
    /// Estimated heading error after correction, degrees.
    public var headingAccuracy: Double
    /// Number of samples the fit used.
    public var sampleCount: Int

    public init(offset: DeviceVector, softIron: [DeviceVector], headingAccuracy: Double, sampleCount: Int) {
        self.offset = offset
        self.softIron = softIron.count == 3 ? softIron : Self.identity
        self.headingAccuracy = headingAccuracy
        self.sampleCount = sampleCount
    }

    static let identity = [
        DeviceVector(x: 1, y: 0, z: 0), DeviceVector(x: 0, y: 1, z: 0), DeviceVector(x: 0, y: 0, z: 1),
    ]

    public func apply(_ raw: DeviceVector) -> DeviceVector {
        let v = raw + (-1) * offset
        let w = softIron.count == 3 ? softIron : Self.identity
        return DeviceVector(x: w[0].dot(v), y: w[1].dot(v), z: w[2].dot(v))
    }

    /// Fits a calibration; nil when there are fewer than 20 samples, the samples do not span enough
    /// orientations (singular normal equations, or a fitted quadric that is not an ellipsoid), or the
    /// misfit is above 10 % of the radius.
    public static func fit(_ samples: [DeviceVector]) -> MagnetometerCalibration? {
        guard samples.count >= 20, samples.allSatisfy(\.isFinite) else { return nil }
        // Centre and scale the data first so the normal equations are well conditioned.
        let n = Double(samples.count)
        let mean = (1 / n) * samples.reduce(DeviceVector(x: 0, y: 0, z: 0), +)
        let spread = samples.map { ($0 + (-1) * mean).length }.reduce(0, +) / n
        guard spread > 0 else { return nil }
        let k = 1 / spread
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 9)
        var atb = [Double](repeating: 0, count: 9)
        for s in samples {
            let x = (s.x - mean.x) * k
            let y = (s.y - mean.y) * k
            let z = (s.z - mean.z) * k
            let row = [x * x, y * y, z * z, 2 * x * y, 2 * x * z, 2 * y * z, x, y, z]
            for i in 0..<9 {
                atb[i] += row[i]
                for j in 0..<9 { ata[i][j] += row[i] * row[j] }
            }
        }
        guard let p = solve(ata, atb) else { return nil }
        let a = [[p[0], p[3], p[4]], [p[3], p[1], p[5]], [p[4], p[5], p[2]]]
        guard let c = solve(a, [-p[6] / 2, -p[7] / 2, -p[8] / 2]) else { return nil }
        var g = 1.0
        for i in 0..<3 { for j in 0..<3 { g += c[i] * a[i][j] * c[j] } }
        guard g > 0 else { return nil }
        let m = a.map { $0.map { $0 / g } }
        let (values, vectors) = jacobiEigen(m)
        guard values.allSatisfy({ $0 > 0 }) else { return nil }
        let semiAxes = values.map { 1 / $0.squareRoot() }
        let radius = pow(semiAxes[0] * semiAxes[1] * semiAxes[2], 1.0 / 3)
        // W = r · V Λ^½ Vᵀ, in the scaled frame; the scale k cancels (W is dimensionless).
        var w = [[Double]](repeating: [0, 0, 0], count: 3)
        for i in 0..<3 {
            for j in 0..<3 {
                for e in 0..<3 { w[i][j] += vectors[i][e] * values[e].squareRoot() * vectors[j][e] }
                w[i][j] *= radius
            }
        }
        var calibration = MagnetometerCalibration(
            offset: DeviceVector(x: mean.x + c[0] / k, y: mean.y + c[1] / k, z: mean.z + c[2] / k),
            softIron: w.map { DeviceVector(x: $0[0], y: $0[1], z: $0[2]) },
            headingAccuracy: 0, sampleCount: samples.count
        )
        let sphere = radius / k
        let squares = samples.map { s -> Double in
            let d = calibration.apply(s).length - sphere
            return d * d
        }
        let rms = (squares.reduce(0, +) / n).squareRoot()
        guard rms < 0.1 * sphere else { return nil }
        calibration.headingAccuracy = max(2, asin(min(1, 2 * rms / sphere)) * 180 / .pi)
        return calibration
    }

    /// Eigenvalues and eigenvectors (as columns) of a symmetric 3 × 3 matrix by cyclic Jacobi rotations.
    static func jacobiEigen(_ matrix: [[Double]]) -> (values: [Double], vectors: [[Double]]) {
        var a = matrix
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            if off < 1e-30 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
                let cs = 1 / (t * t + 1).squareRoot()
                let sn = t * cs
                for r in 0..<3 {
                    let arp = a[r][p]
                    let arq = a[r][q]
                    a[r][p] = cs * arp - sn * arq
                    a[r][q] = sn * arp + cs * arq
                }
                for r in 0..<3 {
                    let apr = a[p][r]
                    let aqr = a[q][r]
                    a[p][r] = cs * apr - sn * aqr
                    a[q][r] = sn * apr + cs * aqr
                }
                for r in 0..<3 {
                    let vrp = v[r][p]
                    let vrq = v[r][q]
                    v[r][p] = cs * vrp - sn * vrq
                    v[r][q] = sn * vrp + cs * vrq
                }
            }
        }
        return ([a[0][0], a[1][1], a[2][2]], v)
    }

    /// Gaussian elimination with partial pivoting; nil for a (near-)singular system.
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a
        var v = b
        let size = v.count
        let tiny = 1e-12 * (m.map { $0.map(abs).max() ?? 0 }.max() ?? 0)
        for column in 0..<size {
            guard let pivot = (column..<size).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }),
                abs(m[pivot][column]) > tiny
            else { return nil }
            m.swapAt(column, pivot)
            v.swapAt(column, pivot)
            for row in (column + 1)..<size {
                let factor = m[row][column] / m[column][column]
                for j in column..<size { m[row][j] -= factor * m[column][j] }
                v[row] -= factor * v[column]
            }
        }
        var x = [Double](repeating: 0, count: size)
        for row in stride(from: size - 1, through: 0, by: -1) {
            var sum = v[row]
            for j in (row + 1)..<size { sum -= m[row][j] * x[j] }
            x[row] = sum / m[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

import Foundation
import LocationEngine

/// Hard- and soft-iron correction of a magnetometer: corrected = scale ⊙ (raw − offset), µT.
///
/// Method: least-squares fit of an axis-aligned ellipsoid a·x² + b·y² + c·z² + d·x + e·y + f·z = 1 to
/// raw samples taken while the device is turned through many orientations (the locus of a constant
/// field seen through a constant offset and per-axis gains). The centre is the hard-iron offset; the
/// per-axis radii give the soft-iron gains, normalised to their geometric mean so the corrected field
/// keeps the sensor's mean strength. Cross-axis soft iron (a rotated ellipsoid) is not modelled: on
/// phone and laptop sensors it is usually a few percent, a heading error of about a degree.
///
/// Accuracy: `headingAccuracy` is twice the RMS misfit of the samples to the fitted sphere, as an
/// angle: asin(2·rms / radius) in degrees, at least 2°.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// Hard-iron offset, µT.
    public var offset: DeviceVector
    /// Soft-iron gains per axis (dimensionless).
    public var scale: DeviceVector
    /// Estimated heading error after correction, degrees.
    public var headingAccuracy: Double
    /// Number of samples the fit used.
    public var sampleCount: Int

    public init(offset: DeviceVector, scale: DeviceVector, headingAccuracy: Double, sampleCount: Int) {
        self.offset = offset
        self.scale = scale
        self.headingAccuracy = headingAccuracy
        self.sampleCount = sampleCount
    }

    public func apply(_ raw: DeviceVector) -> DeviceVector {
        DeviceVector(x: scale.x * (raw.x - offset.x), y: scale.y * (raw.y - offset.y), z: scale.z * (raw.z - offset.z))
    }

    /// Fits a calibration; nil when there are fewer than 12 samples, the samples do not span enough
    /// orientations (the normal equations are singular or the fit is not an ellipsoid), or the
    /// misfit is above 10 % of the radius.
    public static func fit(_ samples: [DeviceVector]) -> MagnetometerCalibration? {
        guard samples.count >= 12, samples.allSatisfy(\.isFinite) else { return nil }
        // Centre and scale the data first so the normal equations are well conditioned.
        let n = Double(samples.count)
        let mean = (1 / n) * samples.reduce(DeviceVector(x: 0, y: 0, z: 0), +)
        let spread = samples.map { ($0 + (-1) * mean).length }.reduce(0, +) / n
        guard spread > 0 else { return nil }
        let k = 1 / spread
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 6)
        var atb = [Double](repeating: 0, count: 6)
        for s in samples {
            let x = (s.x - mean.x) * k
            let y = (s.y - mean.y) * k
            let z = (s.z - mean.z) * k
            let row = [x * x, y * y, z * z, x, y, z]
            for i in 0..<6 {
                atb[i] += row[i]
                for j in 0..<6 { ata[i][j] += row[i] * row[j] }
            }
        }
        guard let p = solve(ata, atb), p[0] > 0, p[1] > 0, p[2] > 0 else { return nil }
        let cx = -p[3] / (2 * p[0])
        let cy = -p[4] / (2 * p[1])
        let cz = -p[5] / (2 * p[2])
        let g = 1 + p[3] * p[3] / (4 * p[0]) + p[4] * p[4] / (4 * p[1]) + p[5] * p[5] / (4 * p[2])
        guard g > 0 else { return nil }
        let radii = [(g / p[0]).squareRoot(), (g / p[1]).squareRoot(), (g / p[2]).squareRoot()]
        let meanRadius = pow(radii[0] * radii[1] * radii[2], 1.0 / 3)
        let offset = DeviceVector(x: mean.x + cx / k, y: mean.y + cy / k, z: mean.z + cz / k)
        let scale = DeviceVector(x: meanRadius / radii[0], y: meanRadius / radii[1], z: meanRadius / radii[2])
        var calibration = MagnetometerCalibration(
            offset: offset, scale: scale, headingAccuracy: 0,
            sampleCount: samples.count)
        let radius = meanRadius / k
        let squares = samples.map { s -> Double in
            let d = calibration.apply(s).length - radius
            return d * d
        }
        let rms = (squares.reduce(0, +) / n).squareRoot()
        guard rms < 0.1 * radius else { return nil }
        calibration.headingAccuracy = max(2, asin(min(1, 2 * rms / radius)) * 180 / .pi)
        return calibration
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

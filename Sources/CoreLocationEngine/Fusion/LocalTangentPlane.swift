import Foundation

/// East/north metres around an origin, for the fusion filter's state.
///
/// Method: the WGS84 ellipsoid's meridional radius M and prime-vertical radius N at the origin's latitude
/// (east = Δλ · N cos φ₀, north = Δφ · M). The error against the exact local tangent plane grows as
/// d³/R²: about 2.5 cm at 10 km and 0.2 m at 20 km from the origin, well below GNSS noise; the filter moves
/// its origin when it is more than `FusionFilter.Configuration.originRadius` away.
public struct LocalTangentPlane: Sendable, Hashable {
    public let originLatitude: Double
    public let originLongitude: Double
    private let metresPerRadianNorth: Double
    private let metresPerRadianEast: Double

    public init(latitude: Double, longitude: Double) {
        originLatitude = latitude
        originLongitude = longitude
        let a = 6_378_137.0
        let e2 = 6.694_379_990_14e-3
        let phi = latitude * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        metresPerRadianNorth = a * (1 - e2) / (w * w.squareRoot())
        metresPerRadianEast = a / w.squareRoot() * cos(phi)
    }

    public func project(latitude: Double, longitude: Double) -> (east: Double, north: Double) {
        var dLon = longitude - originLongitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * .pi / 180 * metresPerRadianEast, (latitude - originLatitude) * .pi / 180 * metresPerRadianNorth)
    }

    public func unproject(east: Double, north: Double) -> (latitude: Double, longitude: Double) {
        var longitude = originLongitude + east / metresPerRadianEast * 180 / .pi
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return (originLatitude + north / metresPerRadianNorth * 180 / .pi, longitude)
    }
}

/// The radius of the circle around the estimate that holds the true position with 68 % probability, for a
/// 2-D Gaussian error with covariance [[ee, en], [en, nn]] m² — the `horizontalAccuracy` convention (Apple
/// documents it as the radius of uncertainty; the project reads it as the 68 % circle, decision 0005).
///
/// Method: with the eigenvalues λ₁ ≥ λ₂, P(|x| ≤ r) = ∫ N(x; 0, λ₁) · erf(√(r² − x²) / √(2 λ₂)) dx over
/// [−r, r], integrated with x = r sin t by Simpson's rule on 64 intervals (the integrand is smooth in t), and r
/// found by bisection between its bounds 0.9945 √λ₁ (λ₂ = 0, a 1-D Gaussian's 68 % half-width) and
/// 1.5096 √λ₁ (λ₂ = λ₁, the circular case √(−2 ln 0.32) σ). Relative accuracy better than 1e-5 (the tests
/// check both limits and a known elliptical value).
public func horizontalRadius68(ee: Double, en: Double, nn: Double) -> Double {
    guard ee.isFinite, en.isFinite, nn.isFinite else { return -1 }
    let mean = (ee + nn) / 2
    let half = (((ee - nn) / 2) * ((ee - nn) / 2) + en * en).squareRoot()
    let l1 = max(mean + half, 0)
    let l2 = max(mean - half, 0)
    guard l1 > 0 else { return 0 }
    if l2 >= l1 * (1 - 1e-9) { return (-2 * log(0.32)).squareRoot() * l1.squareRoot() }
    func probability(_ r: Double) -> Double {
        let n = 64
        let h = Double.pi / Double(n)
        var sum = 0.0
        for i in 0...n {
            let t = -Double.pi / 2 + Double(i) * h
            let x = r * sin(t)
            let y = r * cos(t)
            let inner = l2 > 0 ? erf(y / (2 * l2).squareRoot()) : (y > 0 ? 1 : 0)
            let value = exp(-x * x / (2 * l1)) * inner * r * cos(t)
            let weight: Double = (i == 0 || i == n) ? 1 : (i % 2 == 1 ? 4 : 2)
            sum += weight * value
        }
        return sum * h / 3 / (2 * Double.pi * l1).squareRoot()
    }
    var low = 0.9944 * l1.squareRoot()
    var high = 1.5097 * l1.squareRoot()
    for _ in 0..<40 {
        let mid = (low + high) / 2
        if probability(mid) < 0.68 { low = mid } else { high = mid }
    }
    return (low + high) / 2
}

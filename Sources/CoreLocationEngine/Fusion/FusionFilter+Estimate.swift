import Foundation

/// The state's dimension, for indexing the row-major covariance.
private let d = FusionFilter.n

extension FusionFilter {
    /// The current estimate, nil before the first GNSS fix.
    public var estimate: Estimate? {
        guard let plane, let time else { return nil }
        let (lat, lon) = plane.unproject(east: x[0], north: x[1])
        let radius = horizontalRadius68(ee: p[0], en: p[1], nn: p[d + 1])
        let ve = x[2]
        let vn = x[3]
        let speed = (ve * ve + vn * vn).squareRoot()
        let pee = p[2 * d + 2]
        let pnn = p[3 * d + 3]
        let pen = p[2 * d + 3]
        var speedSigma = ((pee + pnn) / 2).squareRoot()
        var course = -1.0
        var courseSigma = -1.0
        if speed > 0 {
            let ue = ve / speed
            let un = vn / speed
            speedSigma = max(ue * ue * pee + 2 * ue * un * pen + un * un * pnn, 0).squareRoot()
            let across = max(un * un * pee - 2 * ue * un * pen + ue * ue * pnn, 0).squareRoot()
            if speed > 2 * across {
                course = atan2(ve, vn) * 180 / .pi
                if course < 0 { course += 360 }
                courseSigma = min(atan2(across, speed) * 180 / .pi, 180)
            }
        }
        return Estimate(
            time: time, latitude: lat, longitude: lon, east: x[0], north: x[1], horizontalAccuracy: radius,
            speed: speed, speedAccuracy: speedSigma, course: course, courseAccuracy: courseSigma,
            isInertial: isAligned, sinceGNSS: lastGNSSTime.map { time - $0 } ?? .infinity,
            height: hasHeight ? x[10] : nil, verticalAccuracy: hasHeight ? max(p[10 * d + 10], 0).squareRoot() : -1,
            verticalSpeed: hasHeight ? x[11] : 0)
    }

    /// The estimate as a `Fix` for the engine (`timestamp` is the wall-clock time of `estimate.time`); the altitude
    /// is `InertialFusion`'s to set (it needs the geoid), and stays invalid here.
    public func fix(timestamp: Date) -> Fix? {
        guard let e = estimate else { return nil }
        return Fix(
            latitude: e.latitude, longitude: e.longitude, horizontalAccuracy: e.horizontalAccuracy,
            course: e.course, courseAccuracy: e.courseAccuracy, speed: e.speed, speedAccuracy: e.speedAccuracy,
            timestamp: timestamp)
    }
}

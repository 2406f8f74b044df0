import Foundation

/// Synchronized Euclidean distance (SED): how far a fix lies from where an uploaded track says the
/// user was at the fix's time.
///
/// Method: the track's position at time t is interpolated linearly in time between the uploaded
/// points on either side (linear in latitude and longitude, which is what a map draws between two
/// points); the distance to the fix is taken on the local tangent plane (equirectangular, scale
/// cos of the mean latitude of the two points, sphere of radius 6 371 008.8 m, the IUGG mean
/// radius). Between points a few tens of metres apart the plane distance differs from the WGS84
/// geodesic by less than 0.5 % (the ellipsoid's flattening), far below the ε of metres it is
/// compared with. Before the first point and after the last the track is taken to stand still there.
///
/// The same function serves the online simplifier, the bounded queue's thinning and
/// `locationctl report`'s summary; `Benchmarks/reporter` computes the same quantity independently.
public enum SynchronizedDistance {
    /// Metres per radian on the mean sphere.
    public static let earthRadius = 6_371_008.8

    /// Plane distance in metres between two nearby positions (degrees).
    public static func distance(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double
    ) -> Double {
        let degrees = Double.pi / 180
        var dLon = longitude2 - longitude1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let x = dLon * degrees * cos((latitude1 + latitude2) / 2 * degrees)
        let y = (latitude2 - latitude1) * degrees
        return (x * x + y * y).squareRoot() * earthRadius
    }

    public static func distance(_ a: ReportPoint, _ b: ReportPoint) -> Double {
        distance(latitude1: a.latitude, longitude1: a.longitude, latitude2: b.latitude, longitude2: b.longitude)
    }

    /// The position on the segment `a`→`b` at time `time` (seconds since 1970), clamped to the segment.
    public static func interpolate(_ a: ReportPoint, _ b: ReportPoint, at time: Double) -> (Double, Double) {
        let span = b.time - a.time
        guard span > 0 else { return (b.latitude, b.longitude) }
        let f = min(max((time - a.time) / span, 0), 1)
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        var longitude = a.longitude + f * dLon
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return (a.latitude + f * (b.latitude - a.latitude), longitude)
    }

    /// SED of `fix` against the segment `a`→`b`, metres.
    public static func sed(of fix: ReportPoint, from a: ReportPoint, to b: ReportPoint) -> Double {
        let (latitude, longitude) = interpolate(a, b, at: fix.time)
        return distance(latitude1: fix.latitude, longitude1: fix.longitude, latitude2: latitude, longitude2: longitude)
    }

    /// SED of each fix against a track (points sorted by time), metres, in the fixes' order.
    public static func sed(of fixes: [ReportPoint], against track: [ReportPoint]) -> [Double] {
        guard let first = track.first, let last = track.last else { return fixes.map { _ in .infinity } }
        var result: [Double] = []
        result.reserveCapacity(fixes.count)
        var index = 0
        for fix in fixes {
            let t = fix.time
            if t <= first.time {
                result.append(distance(fix, first))
                continue
            }
            if t >= last.time {
                result.append(distance(fix, last))
                continue
            }
            // Fixes come mostly in time order; search forward, else from the start.
            if index >= track.count - 1 || track[index].time > t { index = 0 }
            while index + 1 < track.count - 1, track[index + 1].time <= t { index += 1 }
            result.append(sed(of: fix, from: track[index], to: track[index + 1]))
        }
        return result
    }
}

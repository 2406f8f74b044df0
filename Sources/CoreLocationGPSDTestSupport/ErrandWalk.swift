import Foundation

/// A GPX walk on the equator for the visit tests (locationctl's in process, and through locationd): 300 m east
/// in 2.8 m steps every 2 s, `stay` seconds standing, 300 m on. Along the equator a longitude step of 2.8 m is
/// 2.8 / (6 378 137 · π/180) degrees, so the stop is 107 steps, about 0.00269°, east of 0°.
public struct ErrandWalk: Sendable {
    public let gpx: String
    /// Seconds from the first point to the first point of the stay.
    public let stopAt: Double
    /// Seconds from the first point to the stay's last point.
    public let leaveAt: Double

    public init(stay: Int, creator: String) {
        let step = 2.8 / (6_378_137 * Double.pi / 180)
        var points: [(Double, Double)] = []
        var longitude = 0.0
        var time = 0.0
        for _ in 0..<107 {
            longitude += step
            points.append((longitude, time))
            time += 2
        }
        stopAt = time
        for _ in 0..<(stay / 2) {
            points.append((longitude, time))
            time += 2
        }
        leaveAt = time - 2
        for _ in 0..<107 {
            longitude += step
            points.append((longitude, time))
            time += 2
        }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let format = Date.ISO8601FormatStyle()
        let body = points.map { lon, t in
            "<trkpt lat=\"0\" lon=\"\(lon)\"><time>\(start.addingTimeInterval(t).formatted(format))</time></trkpt>"
        }.joined(separator: "\n")
        gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="\(creator)" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            \(body)
            </trkseg></trk>
            </gpx>

            """
    }
}

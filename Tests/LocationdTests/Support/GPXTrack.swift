import Foundation

/// A GPX track for the daemon's simulated source: one point per recorded second from a fixed
/// origin (2023-11-14T22:13:20Z), written into a test's directory.
enum GPXTrack {
    static let origin = Date(timeIntervalSince1970: 1_700_000_000)

    /// Writes `points` (latitude, longitude) to `directory/track.gpx` and returns its path.
    static func write(_ points: [(latitude: Double, longitude: Double)], in directory: String, creator: String)
        throws -> String
    {
        let formatter = ISO8601DateFormatter()
        var gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="\(creator)" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>

            """
        for (index, point) in points.enumerated() {
            gpx += "<trkpt lat=\"\(point.latitude)\" lon=\"\(point.longitude)\"><time>"
                + formatter.string(from: origin.addingTimeInterval(Double(index))) + "</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let path = directory + "/track.gpx"
        try gpx.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

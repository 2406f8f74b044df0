import Foundation

/// Great-circle distance in metres on a sphere of the IUGG mean Earth radius (6 371 008.8 m),
/// by the haversine formula. Versus the WGS84 geodesic it errs by up to about 0.5 %, so tests
/// use it as a bound with 1 % slack, never as an exact value.
func haversineDistance(
    _ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)
) -> Double {
    let radius = 6_371_008.8
    let φ1 = a.latitude * .pi / 180
    let φ2 = b.latitude * .pi / 180
    let Δφ = φ2 - φ1
    let Δλ = (b.longitude - a.longitude) * .pi / 180
    let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
    return 2 * radius * asin(min(1, h.squareRoot()))
}

/// The `lat`/`lon` attributes of every `<trkpt>` in a GPX text, in order.
func trackPoints(inGPX text: String) throws -> [(latitude: Double, longitude: Double)] {
    let pattern = try NSRegularExpression(pattern: #"<trkpt\s+lat="([-0-9.]+)"\s+lon="([-0-9.]+)""#)
    let range = NSRange(text.startIndex..., in: text)
    return pattern.matches(in: text, range: range).compactMap { match in
        guard let lat = Range(match.range(at: 1), in: text), let lon = Range(match.range(at: 2), in: text),
            let latitude = Double(text[lat]), let longitude = Double(text[lon])
        else { return nil }
        return (latitude, longitude)
    }
}

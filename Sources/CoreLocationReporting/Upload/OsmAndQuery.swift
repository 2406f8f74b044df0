import Foundation

/// Traccar's OsmAnd protocol: the report as HTTP query parameters.
///
/// `id` (device), `timestamp` (the fix's own time, Unix seconds), `lat`, `lon`, `speed` in knots,
/// `bearing` (degrees), `altitude` (metres), `accuracy` (metres) — each only when known — and
/// `event` (arrival / departure / heartbeat; Traccar keeps unknown parameters as attributes).
enum OsmAndQuery {
    /// Metres per second in one knot (1852 m / 3600 s).
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    static func items(_ report: QueuedReport, device: String) -> [URLQueryItem] {
        let p = report.point
        var items = [
            URLQueryItem(name: "id", value: device),
            URLQueryItem(name: "timestamp", value: String(Int64(p.time.rounded(.down)))),
            URLQueryItem(name: "lat", value: String(format: "%.7f", p.latitude)),
            URLQueryItem(name: "lon", value: String(format: "%.7f", p.longitude)),
        ]
        if p.speed >= 0 {
            items.append(URLQueryItem(name: "speed", value: String(format: "%.2f", p.speed / metresPerSecondPerKnot)))
        }
        if p.course >= 0 { items.append(URLQueryItem(name: "bearing", value: String(format: "%.1f", p.course))) }
        if p.verticalAccuracy >= 0 { items.append(URLQueryItem(name: "altitude", value: String(format: "%.1f", p.altitude))) }
        if p.horizontalAccuracy >= 0 {
            items.append(URLQueryItem(name: "accuracy", value: String(format: "%.1f", p.horizontalAccuracy)))
        }
        if report.kind != .track { items.append(URLQueryItem(name: "event", value: report.kind.rawValue)) }
        return items
    }
}

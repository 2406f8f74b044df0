import Foundation

/// An OwnTracks `_type: location` message (OwnTracks JSON format, HTTP mode).
///
/// `tst` is the fix's own time (Unix seconds), `created_at` when the report was queued; `acc`,
/// `alt`, `vac`, `vel` (km/h), `cog` are present only when known; `tid` is the last two characters of
/// the device name; `t` is the trigger: `t` for track points (OwnTracks' move-mode timer), `c` for
/// arrival and departure (a region event), `p` for a heartbeat (a ping). `_id` carries the
/// idempotency key, `event` says "arrival" or "departure" for those reports.
struct OwnTracksMessage: Encodable {
    let type = "location"
    let id: String
    let lat: Double
    let lon: Double
    let tst: Int64
    let createdAt: Int64
    let acc: Int?
    let alt: Int?
    let vac: Int?
    let vel: Int?
    let cog: Int?
    let tid: String
    let t: String
    let event: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case id = "_id"
        case createdAt = "created_at"
        case lat, lon, tst, acc, alt, vac, vel, cog, tid, t, event
    }

    init(_ report: QueuedReport, device: String) {
        let p = report.point
        id = report.key
        lat = p.latitude
        lon = p.longitude
        tst = Int64(p.time.rounded(.down))
        createdAt = Int64(report.enqueuedAt.timeIntervalSince1970.rounded(.down))
        acc = p.horizontalAccuracy >= 0 ? Int(p.horizontalAccuracy.rounded()) : nil
        alt = p.verticalAccuracy >= 0 ? Int(p.altitude.rounded()) : nil
        vac = p.verticalAccuracy >= 0 ? Int(p.verticalAccuracy.rounded()) : nil
        vel = p.speed >= 0 ? Int((p.speed * 3.6).rounded()) : nil
        cog = p.course >= 0 ? Int(p.course.rounded()) % 360 : nil
        let letters = device.filter { $0.isLetter || $0.isNumber }
        tid = letters.count >= 2 ? String(letters.suffix(2)) : "lc"
        switch report.kind {
        case .track: t = "t"
        case .arrival, .departure: t = "c"
        case .heartbeat: t = "p"
        }
        event = report.kind == .arrival || report.kind == .departure ? report.kind.rawValue : nil
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(self))
        } catch {
            throw ReportingError(code: .badURL, message: "cannot encode an OwnTracks message", underlying: error)
        }
    }
}

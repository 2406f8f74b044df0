import Foundation

/// walk.nmea (see Fixtures/make_fixture.py): 10 epochs of RMC, GGA, GSA, GSV×3, GST.
enum Walk {
    static func fixtureEpochs() throws -> [[String]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/walk.nmea")
        let text = try String(contentsOf: url, encoding: .utf8)
        let sentences = text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
        return stride(from: 0, to: sentences.count, by: 7).map { Array(sentences[$0..<min($0 + 7, sentences.count)]) }
    }

    /// What the sentences of one epoch say, read straight from RMC and GGA fields (the oracle).
    struct Expected {
        var latitude: Double
        var longitude: Double
        var altitudeMSL: Double
        var ellipsoidalAltitude: Double
        var speed: Double
        var course: Double
        var hdop: Double
        var vdop: Double
        var timestamp: Date
    }

    static func expected(_ epoch: [String]) -> Expected? {
        func fields(_ type: String) -> [String]? {
            epoch.first { $0.dropFirst(3).hasPrefix(type) }.map { sentence in
                let body = sentence.split(separator: "*")[0]
                return body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
        }
        guard let rmc = fields("RMC"), let gga = fields("GGA"), let gsa = fields("GSA"),
            let latMinutes = Double(rmc[3].dropFirst(2)), let latDegrees = Double(rmc[3].prefix(2)),
            let lonMinutes = Double(rmc[5].dropFirst(3)), let lonDegrees = Double(rmc[5].prefix(3)),
            let knots = Double(rmc[7]), let course = Double(rmc[8]),
            let msl = Double(gga[9]), let separation = Double(gga[11]),
            let hdop = Double(gsa[16]), let vdop = Double(gsa[17])
        else { return nil }
        var components = DateComponents()
        components.timeZone = TimeZone(identifier: "UTC")
        let date = rmc[9]
        let time = rmc[1]
        components.day = Int(date.prefix(2))
        components.month = Int(date.dropFirst(2).prefix(2))
        components.year = Int(date.suffix(2)).map { 2000 + $0 }
        components.hour = Int(time.prefix(2))
        components.minute = Int(time.dropFirst(2).prefix(2))
        components.second = Int(time.dropFirst(4).prefix(2))
        guard let timestamp = Calendar(identifier: .gregorian).date(from: components) else { return nil }
        let sign: (String) -> Double = { $0 == "S" || $0 == "W" ? -1 : 1 }
        return Expected(
            latitude: sign(rmc[4]) * (latDegrees + latMinutes / 60),
            longitude: sign(rmc[6]) * (lonDegrees + lonMinutes / 60),
            altitudeMSL: msl, ellipsoidalAltitude: msl + separation,
            speed: knots * 1852 / 3600, course: course, hdop: hdop, vdop: vdop, timestamp: timestamp
        )
    }

    /// An endless variant of walk.nmea for the restart test: epoch k at 12:00:00 + k s, moving on.
    static func generatedEpoch(_ k: Int) -> [String] {
        let seconds = 12 * 3600 + k
        let time = String(format: "%02d%02d%02d.00", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
        let lat = String(format: "4807.%04d", (380 + 10 * k) % 10_000)
        let bodies = [
            "GPRMC,\(time),A,\(lat),N,01131.0000,E,37.9,18.4,150324,3.3,E,A",
            "GPGGA,\(time),\(lat),N,01131.0000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5",
            "GPGST,\(time),1.5,1.2,0.9,45.0,1.2,0.9,2.1",
        ]
        return bodies.map { body in
            let checksum = body.utf8.reduce(UInt8(0), ^)
            return "$" + body + "*" + String(format: "%02X", checksum)
        }
    }
}

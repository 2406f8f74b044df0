import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

/// When the sentences of one epoch disagree, the position is the epoch's last valid position
/// sentence's, as gpsd's (decision 0014). Oracle: gpsd 3.22's `gpsdecode -j` of the same files,
/// committed next to them (`Fixtures/gpsd/*-gpsd-3.22.jsonl`; how they were made:
/// `Fixtures/nmea/make-disagreeing-epochs.py`).
@Suite struct NMEAEpochPriorityTests {
    struct TPV: Decodable {
        var `class`: String
        var time: String?
        var lat: Double?
        var lon: Double?
        var altMSL: Double?
    }

    static func gpsdFixes(_ name: String) throws -> [TPV] {
        let text = String(decoding: try fixture("gpsd/\(name)-gpsd-3.22.jsonl"), as: UTF8.self)
        return try text.split(whereSeparator: \.isNewline).map { try JSONDecoder().decode(TPV.self, from: Data($0.utf8)) }
            .filter { $0.class == "TPV" && $0.lat != nil }
    }

    /// gpsd reports every epoch but the first (it learns the cycle's end from it); each of its fixes
    /// must be ours at the same second, to gpsd's printed precision (1e-9°, 0.1 mm).
    @Test(arguments: ["disagreeing-gga-gll-rmc", "disagreeing-rmc-gll-gga"])
    func positionsEqualGpsds(name: String) throws {
        let ours = runPipeline(try fixture("nmea/\(name).nmea")).fixes
        let theirs = try Self.gpsdFixes(name)
        try #require(theirs.count == 7 && ours.count == 8)
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for tpv in theirs {
            let time = try #require(tpv.time.flatMap { format.date(from: $0) })
            let fix = try #require(ours.first { $0.timestamp == time }, "no fix at \(time)")
            #expect(abs(fix.latitude - (tpv.lat ?? .nan)) < 1e-9, "\(name) \(time)")
            #expect(abs(fix.longitude - (tpv.lon ?? .nan)) < 1e-9, "\(name) \(time)")
            #expect(fix.altitude == tpv.altMSL)
        }
    }

    /// The regression: with the old rule (GGA first) the fix differed from gpsd's by 0.1–0.4 m in
    /// the file whose GGA is not last (here up to 0.8 m: each sentence is off by up to ±0.3 m per axis). Guards that the fixture really disagrees, so the test above
    /// cannot pass by accident.
    @Test func theFixtureDisagreesWithGGAFirst() throws {
        let text = String(decoding: try fixture("nmea/disagreeing-gga-gll-rmc.nmea"), as: UTF8.self)
        let gga = text.split(separator: "\r\n").compactMap { decode(String($0)) }.compactMap { sentence -> NMEAGGA? in
            if case .gga(let gga) = sentence.body { return gga }
            return nil
        }
        let theirs = try Self.gpsdFixes("disagreeing-gga-gll-rmc")
        var largest = 0.0
        for (gga, tpv) in zip(gga.dropFirst(), theirs) {
            let lat = try #require(gga.latitude), lon = try #require(gga.longitude)
            let north = (lat - (tpv.lat ?? 0)) * 111_250
            let east = (lon - (tpv.lon ?? 0)) * 67_300
            largest = max(largest, (north * north + east * east).squareRoot())
        }
        #expect(largest > 0.1 && largest < 1, "\(largest) m")  // offsets of ±0.3 m per axis per sentence
    }

    /// Order inside the epoch decides, not the kind: an invalid GLL after a valid GGA does not move
    /// the position (gpsd sets no position from GLL status V), a valid RMC after both does.
    @Test func invalidSentencesDoNotTakeThePosition() {
        let text = [
            nmea("GPRMC,120000.00,A,4807.0000,N,01131.0000,E,0.0,,010126,,,A"),
            nmea("GPGGA,120001.00,4807.0010,N,01131.0010,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPGLL,4807.0020,N,01131.0020,E,120001.00,V,N"),
            nmea("GPGGA,120002.00,4807.0030,N,01131.0030,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPRMC,120002.00,A,4807.0040,N,01131.0040,E,0.0,,010126,,,A"),
        ].joined(separator: "\r\n") + "\r\n"
        let events = runPipeline(Array(text.utf8)).events
        #expect(events.count == 3)
        #expect(events[1] == .noFix(reason: "no fix (GLL status V)"), "any no-fix sentence still wins")
        guard case .fix(let last) = events[2] else {
            Issue.record("no fix")
            return
        }
        #expect(last.latitude == 48 + 7.004 / 60 && last.longitude == 11 + 31.004 / 60)
    }
}

import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

/// Recorded NMEA from three receiver models through splitter, parser and assembler. Expected values
/// are worked out from the sentences by hand (the derivation is in each comment), not copied from
/// the code's output.
@Suite struct NMEAEpochAssemblerTests {
    @Test func globalSatBU353S4() throws {
        let result = runPipeline(try fixture("nmea/globalsat-bu353s4.nmea"))
        #expect(result.statistics.decoded == 15)
        #expect(result.statistics[.notASentence] == 4)  // the provenance header
        #expect(result.statistics.dropped == 4)
        let fixes = result.fixes
        try #require(fixes.count == 4)
        let first = fixes[0]
        // $GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000
        #expect(first.latitude == -(37 + 47.0873 / 60))
        #expect(first.longitude == 175 + 18.8938 / 60)
        #expect(first.altitude == 59.9)
        #expect(abs(first.ellipsoidalAltitude - 83.6) < 1e-9)  // 59.9 + 23.7
        // No GST: HDOP 1.1 × 5 m and VDOP 1.5 × 5 m (GSA 1.8,1.1,1.5).
        #expect(abs(first.horizontalAccuracy - 5.5) < 1e-9)
        #expect(abs(first.verticalAccuracy - 7.5) < 1e-9)
        // RMC: 0.69 kn × 1852/3600, course 181.39, date 311214.
        #expect(abs(first.speed - 0.69 * 1852 / 3600) < 1e-12)
        #expect(first.course == 181.39)
        #expect(abs(first.speedAccuracy - 0.11) < 1e-12)  // max(0.1, 1.1 × 0.1)
        #expect(abs(first.courseAccuracy - atan(0.11 / (0.69 * 1852 / 3600)) * 180 / .pi) < 1e-9)
        #expect(first.timestamp == utc(2014, 12, 31, 3, 7, 19))
        #expect(first.isFromAccessory && !first.isSimulated)
        #expect(fixes.map(\.timestamp) == (19...22).map { utc(2014, 12, 31, 3, 7, Double($0)) })
        #expect(fixes[3].latitude == -(37 + 47.0877 / 60))
        #expect(abs(fixes[3].speed - 0.12 * 1852 / 3600) < 1e-12)

        // Status after the last epoch; the GSV cycle of 030721 listed 12 satellites, 8 used by GSA.
        #expect(result.status.fixMode == .threeD)
        #expect(result.status.satellitesUsed == 8)
        #expect(result.status.satellitesInView == 12)
        #expect(result.status.satellites.map(\.id) == [17, 28, 6, 1, 30, 20, 26, 13, 11, 8, 2, 3])
        #expect(result.status.satellites.filter(\.used).map(\.id) == [17, 28, 6, 1, 30, 20, 26, 13])
        #expect(result.status.mode == .autonomous)
    }

    @Test func furunoGT88MultiGNSSNMEA411() throws {
        let result = runPipeline(try fixture("nmea/furuno-gt88.nmea"))
        #expect(result.statistics.decoded == 24)
        #expect(result.statistics.ignored == 9)  // proprietary $PERD…
        #expect(result.statistics[.notASentence] == 5)
        let fixes = result.fixes
        try #require(fixes.count == 2)
        let fix = fixes[0]
        #expect(fix.latitude == 59 + 57.0062 / 60)
        #expect(fix.longitude == 11 + 0.6429 / 60)
        #expect(fix.altitude == 168.9)
        #expect(abs(fix.ellipsoidalAltitude - 208.4) < 1e-9)  // 168.9 + 39.5
        // GGA quality 2 (DGPS/SBAS): σ_UERE 1 m; HDOP 1.3, VDOP 1.0.
        #expect(abs(fix.horizontalAccuracy - 1.3) < 1e-9)
        #expect(abs(fix.verticalAccuracy - 1.0) < 1e-9)
        #expect(fix.speed == 0)
        #expect(fix.course == -1 && fix.courseAccuracy == -1)  // no course while standing still
        #expect(fix.timestamp == utc(2022, 7, 31, 12, 2, 13))
        #expect(fixes[1].timestamp == utc(2022, 7, 31, 12, 2, 14))
        // GGA says 00 satellites; the two GSAs list 6 GLONASS + 5 Galileo (GNS: 11).
        #expect(result.status.satellitesUsed == 11)
        #expect(result.status.satellitesInView == 18)  // GP 1 + GL 10 + GA 7
        #expect(result.status.quality == 2)
        #expect(result.status.mode == .differential)
        #expect(result.status.fixMode == .threeD)
        let galileo = result.status.satellites.filter { $0.talker == NMEATalker("GA") }
        #expect(galileo.map(\.id) == [36, 9, 4, 11, 27, 30, 5])
        #expect(galileo.filter(\.used).map(\.id) == [36, 9, 4, 11, 5])
    }

    @Test func bandGZeus2MarineNetwork() throws {
        let received = utc(2026, 1, 1, 9, 50)
        let result = runPipeline(try fixture("nmea/bandg-zeus2.nmea"), receivedAt: received)
        #expect(result.statistics.decoded == 19)
        #expect(result.statistics.ignored == 6)  // DPT, MWV, GLC ×2, AAM, XTE
        #expect(result.statistics[.notASentence] == 5)
        let fixes = result.fixes
        try #require(fixes.count == 3)
        // Epoch 09:47:36 closes before any date arrived: the receive time's day is used.
        #expect(fixes[0].timestamp == utc(2026, 1, 1, 9, 47, 36))
        #expect(fixes[0].speed == -1)
        // Epoch 09:47:37: RMC, VTG, ZDA, then GGA/GLL/GSA of the same second.
        let fix = fixes[1]
        #expect(fix.timestamp == utc(2018, 8, 20, 9, 47, 37))
        // GGA says 5251.0085 N 00518.8151 E, the later GLL 5251.0084 N 00518.8149 E: the last valid
        // position of the epoch wins, as in gpsd (its gpsdecode -j of this file: 52.85014, 5.313581667).
        #expect(fix.latitude == 52 + 51.0084 / 60)
        #expect(fix.longitude == 5 + 18.8149 / 60)
        #expect(fix.altitude == -4)
        #expect(abs(fix.ellipsoidalAltitude - 42.8) < 1e-9)
        #expect(abs(fix.horizontalAccuracy - 3.0) < 1e-9)  // HDOP 0.60 × 5 m
        #expect(abs(fix.verticalAccuracy - 4.5) < 1e-9)  // VDOP 0.90 × 5 m
        #expect(abs(fix.speed - 5.6 * 1852 / 3600) < 1e-12)
        #expect(fix.course == 230.5)
        // Last epoch (RMC/VTG/ZDA only): RMC position, no altitude, nominal DOP 2 × 5 m.
        #expect(fixes[2].latitude == 52 + 51.0084 / 60)
        #expect(fixes[2].verticalAccuracy == -1)
        #expect(fixes[2].horizontalAccuracy == 10)
    }

    @Test func sameEventsWhenDripFed() throws {
        for name in ["globalsat-bu353s4", "furuno-gt88", "bandg-zeus2"] {
            let data = try fixture("nmea/\(name).nmea")
            #expect(runPipeline(data, chunkSize: 1).events == runPipeline(data).events, "\(name)")
        }
    }

    @Test func noFixGivesNoLocation() {
        let text = [
            nmea("GPGGA,120000.00,,,,,0,00,99.99,,,,,,"),
            nmea("GPRMC,120000.00,V,,,,,,,010126,,,N"),
            nmea("GPGGA,120001.00,,,,,0,00,99.99,,,,,,"),
            nmea("GPRMC,120001.00,V,,,,,,,010126,,,N"),
        ].joined(separator: "\r\n")
        let result = runPipeline(Array(text.utf8))
        #expect(result.fixes.isEmpty)
        #expect(result.events == [.noFix(reason: "no fix (GGA quality 0)"), .noFix(reason: "no fix (GGA quality 0)")])
        #expect(result.status.fixMode == .noFix)
    }

    @Test func rmcStatusVAloneIsNoFix() {
        let text = nmea("GPRMC,120000.00,V,4807.038,N,01131.000,E,0.0,,010126,,,N") + "\n"
        #expect(runPipeline(Array(text.utf8)).events == [.noFix(reason: "no fix (RMC status V)")])
    }

    @Test func ggaAfterMidnightBeforeTheNewDate() {
        let text = [
            nmea("GPGGA,235958.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPRMC,235958.00,A,4807.038,N,01131.000,E,0.0,,311214,,,A"),
            nmea("GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPRMC,235959.00,A,4807.038,N,01131.000,E,0.0,,311214,,,A"),
            // This receiver skips RMC for one epoch right after midnight.
            nmea("GPGGA,000000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPGGA,000001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPRMC,000001.00,A,4807.038,N,01131.000,E,0.0,,010115,,,A"),
        ].joined(separator: "\n")
        let fixes = runPipeline(Array(text.utf8)).fixes
        #expect(
            fixes.map(\.timestamp) == [
                utc(2014, 12, 31, 23, 59, 58), utc(2014, 12, 31, 23, 59, 59), utc(2015, 1, 1, 0, 0, 0),
                utc(2015, 1, 1, 0, 0, 1),
            ])
    }

    @Test func gpsWeekRollover() {
        // A receiver with the 1024-week bug reports 2007-04-07 for 2026-11-21 (1024 weeks = 7168 days later).
        let text = nmea("GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,,070407,,,A") + "\n"
        let corrected = runPipeline(Array(text.utf8), referenceDate: NMEAEpochAssembler.releaseReferenceDate)
        #expect(corrected.fixes.map(\.timestamp) == [utc(2007, 4, 7, 12).addingTimeInterval(1024 * 7 * 86_400)])
        #expect(corrected.fixes.first?.timestamp == utc(2026, 11, 21, 12))
        let replayed = runPipeline(Array(text.utf8), referenceDate: nil)
        #expect(replayed.fixes.map(\.timestamp) == [utc(2007, 4, 7, 12)])
    }

    @Test func gstGivesTheAccuracies() {
        let text = [
            nmea("GPGGA,172814.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031"),
            "$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A",
        ].joined(separator: "\n")
        let fix = runPipeline(Array(text.utf8)).fixes.first
        #expect(abs((fix?.horizontalAccuracy ?? 0) - (0.023 * 0.023 + 0.020 * 0.020).squareRoot()) < 1e-12)
        #expect(fix?.verticalAccuracy == 0.031)
        #expect(abs((fix?.ellipsoidalAltitude ?? 0) - (18.893 - 25.669)) < 1e-9)
    }

    @Test func withoutAnyDateTheReceiveDayIsUsed() {
        let text = nmea("GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") + "\n"
        let fixes = runPipeline(Array(text.utf8), receivedAt: utc(2026, 3, 5, 0, 0, 10)).fixes
        #expect(fixes.map(\.timestamp) == [utc(2026, 3, 4, 23, 59, 59)])
    }

    @Test func badSentencesInTheMiddleAreDroppedAndTheStreamGoesOn() throws {
        var bytes = Array(try fixture("nmea/globalsat-bu353s4.nmea"))
        // Corrupt one RMC's checksum digit and insert binary garbage and an overlong line.
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: "1.15,181.39,311214,,,A*7B", with: "1.15,181.39,311214,,,A*7C")
        bytes = Array(text.utf8)
        bytes = [0x00, 0xFF, 0x24, 0x80, 0x0A] + bytes
        bytes += Array((String(repeating: "X", count: 600) + "\n").utf8)
        let result = runPipeline(bytes)
        #expect(result.statistics[.badChecksum] == 1)
        #expect(result.statistics[.overlong] == 1)
        #expect(result.statistics[.nonPrintable] == 1)
        #expect(result.fixes.count == 4)
        #expect(result.fixes.allSatisfy { abs($0.latitude + 37.78) < 0.01 })
    }
}

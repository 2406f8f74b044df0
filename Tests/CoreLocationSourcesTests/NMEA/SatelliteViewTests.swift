import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocationSources

/// The satellite view gpsd's `SKY` is written from (decision 0089), against what gpsd 3.22 printed for the same
/// NMEA (`gpsd -N -n tcp://…`, read with a raw `?WATCH`; the recordings are in the test).
struct SatelliteViewTests {
    static func satellite(_ id: Int, _ elevation: Double, _ azimuth: Double, used: Bool = true)
        -> SatelliteView.Satellite
    {
        SatelliteView.Satellite(prn: id, gnssID: 0, svID: id, elevation: elevation, azimuth: azimuth, snr: 40, used: used)
    }

    /// walk.nmea's epoch: GSA 04,05,09,12,24,25,29,31 with PDOP 1.8, HDOP 0.9, VDOP 1.5; GSV as below. gpsd 3.22
    /// printed `"xdop":0.56,"ydop":0.83,"vdop":1.50,"tdop":0.87,"hdop":0.90,"gdop":1.91,"pdop":1.80`: the receiver's
    /// three, the other four from the geometry.
    @Test func dilutionsAreTheReceiversAndTheGeometrys() {
        let used = [(4, 61, 137), (5, 33, 295), (9, 22, 48), (12, 70, 210), (24, 15, 99), (25, 41, 177), (29, 55, 318),
            (31, 12, 260)].map { Self.satellite($0.0, $0.1, $0.2) }
        let view = SatelliteView(
            fixTime: nil, satellites: used + [Self.satellite(2, 8, 20, used: false), Self.satellite(18, 5, 330, used: false)],
            reportedPDOP: 1.8, reportedHDOP: 0.9, reportedVDOP: 1.5)
        let dop = view.dilution
        let printed = [dop.x, dop.y, dop.vertical, dop.time, dop.horizontal, dop.geometric, dop.position].map {
            $0.map { String(format: "%.2f", $0) } ?? "-"
        }
        #expect(printed == ["0.56", "0.83", "1.50", "0.87", "0.90", "1.91", "1.80"])

        // Without the receiver's figures, the geometry's own (the same solution: vdop √Q₃₃ = 1.368…).
        let bare = SatelliteView(fixTime: nil, satellites: used).dilution
        #expect(abs((bare.vertical ?? 0) - 1.3680) < 1e-4)
        #expect(abs((bare.horizontal ?? 0) - 1.0066) < 1e-4)
        #expect(abs((bare.position ?? 0) - 1.6985) < 1e-4)
    }

    /// Three used satellites (or four in one plane through the receiver) solve nothing: only the receiver's figures,
    /// as gpsd printed for an epoch whose GSA named satellites its GSV did not list.
    @Test func tooFewOrDegenerateSatellitesGiveOnlyTheReceiversFigures() {
        let three = SatelliteView(
            fixTime: nil, satellites: [Self.satellite(4, 61, 137), Self.satellite(5, 33, 295), Self.satellite(9, 22, 48)],
            reportedPDOP: 1.8, reportedHDOP: 0.9, reportedVDOP: 1.5
        ).dilution
        #expect(three.x == nil && three.y == nil && three.time == nil && three.geometric == nil)
        #expect(three.horizontal == 0.9 && three.vertical == 1.5 && three.position == 1.8)
        let flat = SatelliteView(
            fixTime: nil, satellites: [0, 90, 180, 270].map { Self.satellite($0 / 90 + 1, 0, Double($0)) }
        ).dilution
        #expect(flat.x == nil && flat.geometric == nil)
    }

    /// gpsd 3.22's numbers for one GSV of each talker (its SKY for `$GPGSV…,46,…`, `$GLGSV…,70,…,81,…`,
    /// `$GAGSV…,05,…,30,…`, `$GBGSV…,12,…`, `$BDGSV…,14,…`): PRN, gnssid, svid.
    @Test func numberedAsGPSDNumbersThem() throws {
        let cases: [(talker: NMEATalker, id: Int, prn: Int, gnss: Int, sv: Int)] = [
            (NMEATalker("GP"), 4, 4, 0, 4), (NMEATalker("GP"), 46, 46, 1, 133), (NMEATalker("GL"), 70, 70, 6, 6),
            (NMEATalker("GL"), 81, 81, 6, 17), (NMEATalker("GA"), 5, 305, 2, 5), (NMEATalker("GA"), 30, 330, 2, 30),
            (NMEATalker("GB"), 12, 412, 3, 12), (NMEATalker("BD"), 14, 414, 3, 14),
        ]
        for item in cases {
            let satellite = try #require(
                SatelliteView.Satellite(
                    talker: item.talker, nmeaID: item.id, elevation: 10, azimuth: 20, snr: nil, used: false))
            let numbers: [Int] = [satellite.prn, satellite.gnssID, satellite.svID]
            let gpsds: [Int] = [item.prn, item.gnss, item.sv]
            #expect(numbers == gpsds, "\(item.talker) \(item.id)")
        }
        #expect(
            SatelliteView.Satellite(talker: NMEATalker("GP"), nmeaID: 0, elevation: nil, azimuth: nil, snr: nil, used: false)
                == nil)
    }

    /// An NMEA receiver's view comes from its status: its satellites in order, `used` from GSA, its fix's time.
    @Test func anNMEAReceiversStatusIsItsView() {
        var status = NMEAReceiverStatus()
        status.lastFix = Date(timeIntervalSince1970: 1_773_576_000)
        status.pdop = 1.8
        status.satellites = [
            NMEASatellite(talker: NMEATalker("GP"), id: 4, elevation: 61, azimuth: 137, snr: 45, used: true),
            NMEASatellite(talker: NMEATalker("GL"), id: 70, elevation: 40, azimuth: 100, snr: nil, used: false),
        ]
        let view = SatelliteView(status)
        #expect(view.fixTime == status.lastFix)
        #expect(view.reportedPDOP == 1.8)
        #expect(view.satellites.map(\.prn) == [4, 70])
        #expect(view.satellites.map(\.used) == [true, false])
        #expect(view.satellites.map(\.snr) == [45, nil])
    }
}

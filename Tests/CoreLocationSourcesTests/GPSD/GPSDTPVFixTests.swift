import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

@Suite struct GPSDTPVFixTests {
    private let fallback = Date(timeIntervalSince1970: 0)

    /// The documented factors, from their closed forms: r(p) = σ√(−2 ln(1−p)) in 2-D, 1.959964σ
    /// for a two-sided 95 % interval in 1-D.
    @Test func confidenceScales() {
        #expect(abs(GPSDTPV.horizontalConfidenceScale - 1.509592 / 2.447747) < 1e-6)
        #expect(abs(GPSDTPV.linearConfidenceScale - 0.510213) < 1e-6)
    }

    /// Every value worked out from walk.nmea's sentences and gpsd 3.22's error model
    /// (eph = HDOP × 19 m, epv = VDOP × 23 m, both 95 %).
    @Test func recordedTPVsGiveTheFixesOfTheSentences() throws {
        var decoder = GPSDDecoder()
        let tpvs = decoder.feed(try recordedGPSDOutput()).compactMap { if case .tpv(let tpv) = $0 { tpv } else { nil } }
        let fixes = tpvs.compactMap { $0.fix(receivedAt: fallback) }
        #expect(fixes.count == 11)
        let epochs = Array(fixes.dropFirst())  // the first epoch is reported twice
        for (i, fix) in epochs.enumerated() {
            // $GPRMC,1200ii.00,A,4807.0380+0.0100i,N,01131.0000+0.0050i,E,37.9,18.4,150324,…
            let latitude = 48 + (7.038 + 0.01 * Double(i)) / 60
            let longitude = 11 + (31.0 + 0.005 * Double(i)) / 60
            #expect(abs(fix.latitude - latitude) < 1e-9, "epoch \(i)")  // gpsd prints 9 decimals
            #expect(abs(fix.longitude - longitude) < 1e-9, "epoch \(i)")
            // $GPGGA,…,545.4+0.1i,M,46.9,M: MSL altitude and geoid separation.
            #expect(abs(fix.altitude - (545.4 + 0.1 * Double(i))) < 1e-4, "epoch \(i)")
            #expect(abs(fix.ellipsoidalAltitude - (545.4 + 0.1 * Double(i) + 46.9)) < 1e-4, "epoch \(i)")
            #expect(abs(fix.speed - 37.9 * 1852 / 3600) < 1e-3)  // gpsd rounds to mm/s
            #expect(abs(fix.course - 18.4) < 1e-4)
            #expect(abs(fix.horizontalAccuracy - 0.9 * 19 * GPSDTPV.horizontalConfidenceScale) < 1e-3)
            #expect(abs(fix.verticalAccuracy - 1.5 * 23 * GPSDTPV.linearConfidenceScale) < 1e-3)
            #expect(fix.timestamp == Date(timeIntervalSince1970: 1_710_504_000 + Double(i)))  // 2024-03-15T12:00:0iZ
            #expect(fix.isFromAccessory && !fix.isSimulated)
        }
        // gpsd sends eps/epd from the second epoch on: scaled by the 1-D factor.
        #expect(abs(epochs[1].speedAccuracy - 25.0 * GPSDTPV.linearConfidenceScale) < 1e-6)
        #expect(abs(epochs[1].courseAccuracy - 65.1975 * GPSDTPV.linearConfidenceScale) < 1e-6)
        #expect(epochs[0].speedAccuracy == -1)
    }

    @Test func noFixModesGiveNothing() {
        for mode in [0, 1] {
            let tpv = GPSDTPV(mode: mode, time: "2024-03-15T12:00:00.000Z", lat: 48, lon: 11)
            #expect(tpv.fix(receivedAt: fallback) == nil)
        }
        #expect(GPSDTPV(mode: 3).fix(receivedAt: fallback) == nil)
        #expect(GPSDTPV(mode: 3, lat: 91, lon: 0).fix(receivedAt: fallback) == nil)
    }

    @Test func oneAltitudeAndGeoidSeparationGiveTheOther() throws {
        let onlyMSL = try #require(
            GPSDTPV(mode: 3, lat: 1, lon: 2, altMSL: 100, geoidSep: 20).fix(receivedAt: fallback))
        #expect(onlyMSL.altitude == 100 && onlyMSL.ellipsoidalAltitude == 120)
        let onlyHAE = try #require(
            GPSDTPV(mode: 3, lat: 1, lon: 2, altHAE: 120, geoidSep: 20).fix(receivedAt: fallback))
        #expect(onlyHAE.altitude == 100 && onlyHAE.ellipsoidalAltitude == 120)
        let legacy = try #require(GPSDTPV(mode: 3, lat: 1, lon: 2, alt: 50, epv: 10).fix(receivedAt: fallback))
        // No geoidSep: EGM96 relates the two (N at 1°N 2°E is about +16 m, tested against PROJ in
        // GeodesyTests), so the ellipsoidal altitude is not just a copy.
        #expect(legacy.altitude == 50 && legacy.ellipsoidalAltitude == 50 + geoidHeight(latitude: 1, longitude: 2))
        #expect(abs(legacy.ellipsoidalAltitude - 50) > 5)
        #expect(abs(legacy.verticalAccuracy - 10 * GPSDTPV.linearConfidenceScale) < 1e-12)
        let twoD = try #require(GPSDTPV(mode: 2, lat: 1, lon: 2, altMSL: 100, epv: 10).fix(receivedAt: fallback))
        #expect(twoD.verticalAccuracy == -1)
        // No eph: from epx/epy (3-4-5), else the documented fallback.
        let fromXY = try #require(GPSDTPV(mode: 2, lat: 1, lon: 2, epx: 3, epy: 4).fix(receivedAt: fallback))
        #expect(abs(fromXY.horizontalAccuracy - 5 * GPSDTPV.horizontalConfidenceScale) < 1e-12)
        let bare = try #require(GPSDTPV(mode: 2, lat: 1, lon: 2).fix(receivedAt: fallback))
        #expect(bare.horizontalAccuracy == GPSDTPV.unknownHorizontalAccuracy)
        #expect(bare.timestamp == fallback && bare.speed == -1 && bare.course == -1)
    }

    @Test func timestamps() throws {
        let cases: [(String, Double?)] = [
            ("1970-01-01T00:00:00Z", 0),
            ("2024-03-15T12:00:01.000Z", 1_710_504_001),
            ("2000-02-29T23:59:59.5Z", 951_868_799.5),
            ("2024-13-01T00:00:00Z", nil),
            ("2024-03-15 12:00:00Z", nil),
            ("garbage", nil),
        ]
        for (text, expected) in cases {
            let tpv = GPSDTPV(mode: 2, time: text, lat: 0, lon: 0)
            let fix = try #require(tpv.fix(receivedAt: fallback))
            #expect(fix.timestamp.timeIntervalSince1970 == expected ?? 0, "\(text)")
        }
    }
}

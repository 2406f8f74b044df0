import Foundation
import Testing

@testable import CoreLocationSources

/// Field layouts, one sentence type at a time; expected values are worked out by hand from the
/// sentence text (ddmm.mmmm → degrees = dd + mm.mmmm / 60).
@Suite struct NMEAParserTests {
    @Test func ggaFromSiRFIV() throws {
        let line = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D"
        let sentence = try #require(decode(line))
        #expect(sentence.talker == NMEATalker("GP"))
        #expect(sentence.talker.system == .gps)
        guard case .gga(let gga) = sentence.body else {
            Issue.record("not GGA")
            return
        }
        #expect(gga.timeOfDay == Double(3 * 3600 + 7 * 60 + 19))
        #expect(gga.latitude == -(37 + 47.0873 / 60))
        #expect(gga.longitude == 175 + 18.8938 / 60)
        #expect(gga.quality == 1)
        #expect(gga.satellitesUsed == 8)
        #expect(gga.hdop == 1.1)
        #expect(gga.altitudeMSL == 59.9)
        #expect(gga.geoidSeparation == 23.7)
        #expect(gga.differentialAge == nil)
        #expect(gga.differentialStation == 0)
    }

    @Test func rmcNMEA41WithNavigationalStatus() throws {
        let sentence = try #require(decode("$GNRMC,120213.000,A,5957.0062,N,01100.6429,E,0.00,0.00,310722,,,D,V*0A"))
        guard case .rmc(let rmc) = sentence.body else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.isValid)
        #expect(rmc.date == NMEADate(year: 2022, month: 7, day: 31))
        #expect(rmc.mode == .differential)
        #expect(rmc.navigationalStatus == UInt8(ascii: "V"))
        #expect(rmc.magneticVariation == nil)
        #expect(rmc.latitude == 59 + 57.0062 / 60)
    }

    @Test func rmcNMEA20WithoutModeAndWithVariation() throws {
        let sentence = try #require(decode(nmea("GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E")))
        guard case .rmc(let rmc) = sentence.body else {
            Issue.record("not RMC")
            return
        }
        #expect(rmc.mode == nil)
        #expect(rmc.navigationalStatus == nil)
        #expect(rmc.magneticVariation == 20.3)
        #expect(rmc.date == NMEADate(year: 1994, month: 11, day: 19))
        #expect(rmc.longitude == -(123 + 11.12 / 60))
    }

    @Test func gsaNMEA411SystemIDAndGSVSignalID() throws {
        let gsa = try #require(decode("$GNGSA,A,3,04,05,09,11,36,,,,,,,,1.5,1.3,1.0,3*39"))
        guard case .gsa(let g) = gsa.body else {
            Issue.record("not GSA")
            return
        }
        #expect(Array(g.satellites) == [4, 5, 9, 11, 36])
        #expect(g.fixType == 3)
        #expect(g.systemID == GNSSSystem.galileo.rawValue)
        #expect(g.pdop == 1.5 && g.hdop == 1.3 && g.vdop == 1.0)

        let gsv = try #require(decode("$GAGSV,2,2,07,27,18,333,,30,16,279,,05,11,185,41,,,,,7*4F"))
        guard case .gsv(let v) = gsv.body else {
            Issue.record("not GSV")
            return
        }
        #expect(gsv.talker.system == .galileo)
        #expect(v.messageCount == 2 && v.messageNumber == 2 && v.satellitesInView == 7)
        #expect(v.signalID == 7)
        #expect(v.satellites.map(\.id) == [27, 30, 5])
        #expect(v.satellites.map(\.snr) == [nil, nil, 41])
        #expect(v.satellites[0].elevation == 18 && v.satellites[0].azimuth == 333)
    }

    @Test func gsvWithoutSignalID() throws {
        let sentence = try #require(decode("$GPGSV,3,3,12,11,12,132,04,08,38,008,,02,35,348,,03,14,091,*73"))
        guard case .gsv(let v) = sentence.body else {
            Issue.record("not GSV")
            return
        }
        #expect(v.signalID == nil)
        #expect(v.satellites.map(\.id) == [11, 8, 2, 3])
    }

    @Test func gnsModesPerSystem() throws {
        let sentence = try #require(decode("$GNGNS,120213.000,5957.0062,N,01100.6429,E,NDD,11,1.3,168.9,39.5,,,V*57"))
        guard case .gns(let gns) = sentence.body else {
            Issue.record("not GNS")
            return
        }
        #expect(gns.bestMode == .differential)
        #expect(gns.isValid)
        #expect(gns.satellitesUsed == 11)
        #expect(gns.altitudeMSL == 168.9 && gns.geoidSeparation == 39.5)
        #expect(gns.navigationalStatus == UInt8(ascii: "V"))
    }

    @Test func gstGLLVTGZDAAndHeadings() throws {
        // GST example of the NovAtel OEM7 manual.
        guard
            case .gst(let gst) = try #require(decode("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A"))
                .body
        else {
            Issue.record("not GST")
            return
        }
        #expect(gst.latitudeError == 0.023 && gst.longitudeError == 0.020 && gst.altitudeError == 0.031)
        #expect(gst.orientation == 273.6)

        guard case .gll(let gll) = try #require(decode("$GPGLL,5251.0093,N,00518.8170,E,094736,A,A*43")).body
        else {
            Issue.record("not GLL")
            return
        }
        #expect(gll.isValid && gll.mode == .autonomous)
        #expect(gll.timeOfDay == Double(9 * 3600 + 47 * 60 + 36))

        guard case .vtg(let vtg) = try #require(decode("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A*19")).body
        else {
            Issue.record("not VTG")
            return
        }
        #expect(vtg.courseTrue == 230.5 && vtg.courseMagnetic == 229.1)
        #expect(vtg.speedKnots == 5.6 && vtg.speedKilometresPerHour == 10.4 && vtg.mode == .autonomous)

        // NMEA 1.5 VTG: no unit letters.
        guard case .vtg(let old) = try #require(decode(nmea("GPVTG,054.7,034.4,005.5,010.2"))).body
        else {
            Issue.record("not VTG")
            return
        }
        #expect(old.courseTrue == 54.7 && old.courseMagnetic == 34.4 && old.speedKnots == 5.5)
        #expect(old.speedKilometresPerHour == 10.2)

        guard case .zda(let zda) = try #require(decode("$GPZDA,094737,20,08,2018,-01,00*6B")).body
        else {
            Issue.record("not ZDA")
            return
        }
        #expect(zda.date == NMEADate(year: 2018, month: 8, day: 20))
        #expect(zda.zoneHours == -1 && zda.zoneMinutes == 0)

        guard case .hdg(let hdg) = try #require(decode("$SDHDG,229.8,,,1.3,E*36")).body
        else {
            Issue.record("not HDG")
            return
        }
        #expect(hdg.sensorHeading == 229.8 && hdg.deviation == nil && hdg.variation == 1.3)

        guard case .hdt(let hdt) = try #require(decode(nmea("HEHDT,274.07,T"))).body
        else {
            Issue.record("not HDT")
            return
        }
        #expect(hdt.heading == 274.07)

        guard case .ths(let ths) = try #require(decode(nmea("GPTHS,338.01,A"))).body
        else {
            Issue.record("not THS")
            return
        }
        #expect(ths.heading == 338.01 && ths.status == UInt8(ascii: "A"))
    }

    @Test func talkers() throws {
        for (talker, system) in [
            ("GL", GNSSSystem.glonass), ("GB", .beidou), ("BD", .beidou), ("GQ", .qzss), ("GI", .navic),
        ] {
            let sentence = try #require(
                decode(nmea("\(talker)GGA,120000,0100.000,N,00200.000,E,1,05,1.0,10.0,M,5.0,M,,")))
            #expect(sentence.talker.system == system)
        }
        #expect(
            try #require(decode(nmea("GNGGA,120000,0100.000,N,00200.000,E,1,05,1.0,10.0,M,5.0,M,,"))).talker.system
                == nil)
    }

    /// Each malformed line is dropped with its reason (table of the cases that forced each check).
    @Test(arguments: [
        ("GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D", NMEAFailure.notASentence),
        ("$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7E", .badChecksum),
        ("$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000", .missingChecksum),
        ("$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7", .missingChecksum),
        ("$GPGGA,0307\u{01}19.000*00", .nonPrintable),
        ("#comment", .notASentence),
        ("", .notASentence),
    ])
    func dropped(line: String, reason: NMEAFailure) {
        #expect(outcome(line) == .dropped(reason))
    }

    @Test(arguments: [
        ("GPGGA,030719.000,9147.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,", NMEAFailure.invalidField),  // lat > 90
        ("GPGGA,030719.000,3747.0873,S,18118.8938,E,1,08,1.1,59.9,M,23.7,M,,", .invalidField),  // lon > 180
        ("GPGGA,030719.000,3747.0873,X,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,", .invalidField),  // hemisphere
        ("GPGGA,250719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,", .invalidField),  // hour 25
        ("GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,5a.9,M,23.7,M,,", .invalidField),  // not a number
        ("GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08", .truncated),
        ("GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,321314,,,A", .invalidField),  // month 13
        ("GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,400.0,311214,,,A", .invalidField),  // course
        ("GPGSV,2,3,08,01,40,083,46", .invalidField),  // message 3 of 2
        ("GP", .truncated),
    ])
    func rangeChecks(body: String, reason: NMEAFailure) {
        #expect(outcome(nmea(body)) == .dropped(reason))
    }

    @Test func unusedTypesAndProprietaryAreIgnoredNotDropped() {
        #expect(outcome("$PERDAPI,ECLKCNT,9999999.97232,Hz*37") == .ignored)
        #expect(outcome("$WIMWV,57.5,R,13.0,N,A*26") == .ignored)
        #expect(outcome(nmea("AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0")) == .ignored)
    }

    @Test func lowercaseChecksumAndLineEndingsAccepted() throws {
        #expect(decode("$GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90*0b\r\n") != nil)
    }

    @Test func decimalsMatchStrtod() {
        // The hand-rolled decimal conversion must give the correctly rounded double.
        for text in ["0.1", "59.9", "3747.0873", "17518.8938", "0.023", "123456789012.345", "99.99", "-4"] {
            let bytes = Array(text.utf8)
            let value = bytes.withUnsafeBytes { NMEAField(bytes: $0, start: 0, end: $0.count).decimal.optional }
            #expect(value == Double(text), "\(text)")
        }
    }
}

/// The word-at-a-time checksum and byte classification against a plain byte loop, on seeded random
/// lines with stray control, DEL, non-ASCII and `*` bytes at every position.
@Suite struct NMEAChecksumFastPathTests {
    private func reference(_ line: [UInt8]) -> NMEAFailure? {
        var checksum: UInt8 = 0
        for (index, byte) in line.enumerated().dropFirst() {
            if byte < 0x20 || byte > 0x7E { return .nonPrintable }
            if byte == UInt8(ascii: "*") {
                guard line.count - index == 3 else {
                    return line[index...].contains { $0 < 0x20 || $0 > 0x7E } ? .nonPrintable : .missingChecksum
                }
                let text = String(decoding: line[(index + 1)...], as: UTF8.self)
                guard let value = UInt8(text, radix: 16) else { return .missingChecksum }
                return value == checksum ? nil : .badChecksum
            }
            checksum ^= byte
        }
        return .missingChecksum
    }

    @Test func matchesAByteLoop() {
        var generator = SplitMix64(seed: 11)
        let strays: [UInt8] = [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xFF, UInt8(ascii: "*")]
        for _ in 0..<5_000 {
            var body = Array("GPXYZ,".utf8)
            let length = Int(generator.next() % 90)
            for _ in 0..<length { body.append(UInt8(0x30 + generator.next() % 0x40)) }
            let checksum = body.reduce(UInt8(0), ^)
            var line = [UInt8(ascii: "$")] + body + Array(("*" + String(format: "%02X", checksum)).utf8)
            switch generator.next() % 3 {
            case 0: line[1 + Int(generator.next() % UInt64(line.count - 1))] = strays[Int(generator.next() % 7)]
            case 1: line[1 + Int(generator.next() % UInt64(body.count))] ^= 0x01
            default: break
            }
            let expected: NMEAParser.Outcome = reference(line).map { .dropped($0) } ?? .ignored
            #expect(line.withUnsafeBytes { NMEAParser.decode($0) } == expected, "\(line)")
        }
    }
}

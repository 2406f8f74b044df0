import Foundation
import CoreLocationEngine
import Synchronization
import Testing

@testable import CoreLocationSources

/// Records what a heading source delivers.
final class GNSSHeadingRecorder: Sendable {
    private let storage = Mutex<[HeadingSourceEvent]>([])
    var events: [HeadingSourceEvent] { storage.withLock { $0 } }
    var samples: [HeadingSample] {
        events.compactMap {
            if case .sample(let sample) = $0 { return sample }
            return nil
        }
    }
    var unavailable: [String] {
        events.compactMap {
            if case .unavailable(let reason) = $0 { return reason }
            return nil
        }
    }
    var handler: @Sendable (HeadingSourceEvent) -> Void { { [self] event in storage.withLock { $0.append(event) } } }
}

/// Sentence rules, on sentences built with an independently computed checksum (`nmea`); expected
/// headings are worked out by hand from the fields.
struct GNSSHeadingTests {
    func reported(_ line: String) -> (heading: ReportedHeading, accuracy: Double)? {
        decode(line).flatMap { GNSSHeading.reported(from: $0) }
    }

    @Test func hdtIsTrueHeading() throws {
        let line = nmea("GPHDT,274.07,T")
        #expect(line == "$GPHDT,274.07,T*03")
        let result = try #require(reported(line))
        #expect(result.heading.trueHeading == 274.07)
        #expect(result.heading.magneticHeading == nil)
        #expect(result.accuracy == GNSSHeading.accuracy)
    }

    @Test func hdgAppliesDeviationThenVariation() throws {
        // 98.3 magnetic, no deviation, variation 12.6° W: true = 98.3 − 12.6 = 85.7.
        let west = try #require(reported(nmea("HCHDG,98.3,0.0,E,12.6,W")))
        #expect(west.heading.magneticHeading == 98.3)
        #expect(abs((west.heading.trueHeading ?? 0) - 85.7) < 1e-9)
        #expect(west.accuracy == GNSSHeading.magneticAccuracy)
        // Sensor 101.1, deviation 2.5° W → magnetic 98.6; variation 7.1° E → true 105.7.
        let east = try #require(reported(nmea("HCHDG,101.1,2.5,W,7.1,E")))
        #expect(abs((east.heading.magneticHeading ?? 0) - 98.6) < 1e-9)
        #expect(abs((east.heading.trueHeading ?? 0) - 105.7) < 1e-9)
        // 355 + 10° E wraps through north to 5.
        let wrap = try #require(reported(nmea("HCHDG,355.0,0.0,E,10.0,E")))
        #expect(abs((wrap.heading.trueHeading ?? 0) - 5) < 1e-9)
    }

    @Test func hdgWithoutVariationHasNoTrueHeading() throws {
        let result = try #require(reported(nmea("HCHDG,45.0,,,,")))
        #expect(result.heading.magneticHeading == 45)
        #expect(result.heading.trueHeading == nil)
    }

    @Test func thsNeedsAValidMode() throws {
        let autonomous = try #require(reported(nmea("GNTHS,77.52,A")))
        #expect(autonomous.heading.trueHeading == 77.52)
        #expect(reported(nmea("GNTHS,77.52,E"))?.heading.trueHeading == 77.52)
        #expect(reported(nmea("GNTHS,77.52,V")) == nil)
        #expect(reported(nmea("GNTHS,77.52,")) == nil)
        #expect(reported(nmea("GNTHS,,A")) == nil)
    }

    @Test func missingFieldsAndBadChecksumsGiveNothing() {
        #expect(reported(nmea("GPHDT,,T")) == nil)
        #expect(reported(nmea("HCHDG,,,,,")) == nil)
        #expect(reported(nmea("GPHDT,361.0,T")) == nil)
        // One digit changed after the checksum was computed.
        let corrupted = nmea("GPHDT,274.07,T").replacingOccurrences(of: "274.07", with: "275.07")
        #expect(decode(corrupted) == nil)
        #expect(reported(nmea("GPRMC,,V,,,,,,,,,,N")) == nil)
    }

    @Test func gpsdATTTrueAndMagnetic() throws {
        var decoder = GPSDDecoder()
        let text = #"{"class":"ATT","device":"/dev/ttyUSB0","time":"2026-01-01T00:00:00.000Z","#
            + #""heading":123.4,"mag_st":"N","mheading":120.1,"pitch":1.5,"roll":-0.5}"# + "\n"
        let messages = decoder.feed(Array(text.utf8))
        guard case .att(let att)? = messages.first else {
            Issue.record("no ATT decoded: \(messages)")
            return
        }
        let heading = try #require(GNSSHeading.reported(from: att))
        #expect(heading.trueHeading == 123.4)
        #expect(heading.magneticHeading == 120.1)
    }

    @Test func gpsdATTAlarmsAndEmptyReportsGiveNothing() {
        #expect(GNSSHeading.reported(from: GPSDATT(heading: 10, mag_st: "C")) == nil)
        #expect(GNSSHeading.reported(from: GPSDATT(pitch: 3)) == nil)
        #expect(GNSSHeading.reported(from: GPSDATT(heading: 10))?.trueHeading == 10)
    }
}

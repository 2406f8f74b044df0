import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocation
import CoreLocationRuntime
@testable import CoreLocationSources

/// A GNSS compass's NMEA stream through `NMEAHeadingSource`, the heading runtime and a manager.
struct GNSSHeadingEndToEndTests {
    /// HDT gives `trueHeading` directly (no location needed); with no fix the magnetic heading is
    /// unknown (−1); the accuracy is the documented GNSS value; `headingFilter` applies to true heading.
    @Test func hdtBecomesTrueHeading() throws {
        let h = try ManagerHarness()
        let source = NMEAHeadingSource(input: .stdin, scheduler: h.scheduler, opensInput: false)
        h.runtime.useHeading(HeadingRuntime(source: source, scheduler: h.scheduler))
        let delegate = HeadingDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        h.flush()
        manager.headingFilter = 2
        manager.startUpdatingHeading()
        let lines = ["GPHDT,274.07,T", "GPHDT,275.00,T", "GPHDT,277.50,T", "GNTHS,280.25,V"]
        source.feed(Array(lines.map { nmea($0) + "\r\n" }.joined().utf8))
        h.flush()
        #expect(delegate.headings.map(\.trueHeading) == [274.07, 277.5])
        #expect(delegate.headings.allSatisfy { $0.magneticHeading == -1 && $0.headingAccuracy == 0.5 })
        #expect(delegate.errors.isEmpty && delegate.calibrationAsks == 0)
        #expect(manager.heading?.trueHeading == 277.5)
        manager.stopUpdatingHeading()
    }

    /// With a fix, HDT's true heading also gives a magnetic heading: true − WMM2025 declination there.
    @Test func magneticHeadingFromTheLastFix() throws {
        let h = try ManagerHarness()
        let source = NMEAHeadingSource(input: .stdin, scheduler: h.scheduler, opensInput: false)
        h.runtime.useHeading(HeadingRuntime(source: source, scheduler: h.scheduler))
        let delegate = HeadingDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        h.flush()
        try h.authorize(.whenInUse)
        manager.startUpdatingLocation()
        h.advance(by: 1)
        let fix = try #require(h.runtime.latestFix)
        manager.startUpdatingHeading()
        source.feed(Array((nmea("GPHDT,90.0,T") + "\r\n").utf8))
        h.flush()
        let heading = try #require(delegate.headings.last)
        let declination = try #require(
            HeadingMath.declination(
                at: HeadingLocation(
                    latitude: fix.latitude, longitude: fix.longitude, ellipsoidalAltitude: fix.ellipsoidalAltitude),
                date: heading.timestamp))
        #expect(heading.trueHeading == 90)
        #expect(abs(heading.magneticHeading - (90 - declination)) < 1e-9)
    }
}

/// Wraps a sentence body in `$…*hh` with its XOR checksum.
private func nmea(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(checksum, radix: 16, uppercase: true)
    return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex)
}

/// `CORELOCATION_HEADING_SOURCE` picks the GNSS heading source before simulation and IIO; an invalid
/// value is ignored.
struct GNSSHeadingConfigurationTests {
    @Test func environmentSelectsTheSource() {
        let gpsd = HeadingRuntime.makeDefault(environment: [
            "CORELOCATION_HEADING_SOURCE": "gpsd://127.0.0.1:2950", "CORELOCATION_HEADING_SIMULATE": "10",
        ])
        #expect((gpsd.source as? GPSDHeadingSource)?.endpoint == GPSDEndpoint(host: "127.0.0.1", port: 2950))
        let nmea = HeadingRuntime.makeDefault(environment: ["CORELOCATION_HEADING_SOURCE": "nmea:/tmp/compass.nmea"])
        #expect((nmea.source as? NMEAHeadingSource)?.input == .file(path: "/tmp/compass.nmea", pace: .realTime))
        let invalid = HeadingRuntime.makeDefault(environment: [
            "CORELOCATION_HEADING_SOURCE": "bogus://x", "CORELOCATION_HEADING_SIMULATE": "10",
        ])
        #expect(invalid.source is SimulatedHeadingSource)
    }
}

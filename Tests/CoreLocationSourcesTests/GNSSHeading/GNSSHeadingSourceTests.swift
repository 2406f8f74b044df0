import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

struct GNSSHeadingSourceTests {
    /// Bytes split mid-sentence still decode; only heading sentences become samples, each stamped with
    /// the scheduler's wall clock when its line completed; nothing arrives after `stop`.
    @Test func nmeaSourceDecodesAStream() throws {
        let scheduler = ManualScheduler()
        let source = NMEAHeadingSource(
            input: .tcp(host: "127.0.0.1", port: 1), scheduler: scheduler, opensInput: false)
        let recorder = GNSSHeadingRecorder()
        source.start(recorder.handler)
        let stream = [
            nmea("GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            nmea("GPHDT,274.07,T"),
            nmea("GNTHS,12.5,V"),
        ].joined(separator: "\r\n") + "\r\n"
        let bytes = Array(stream.utf8)
        source.feed(Array(bytes[..<50]))
        source.feed(Array(bytes[50...]))
        scheduler.advance(by: 1.5)
        source.feed(Array((nmea("HCHDG,98.3,0.0,E,12.6,W") + "\r\n").utf8))
        #expect(recorder.samples.count == 2)
        let first = try #require(recorder.samples.first)
        #expect(first.reported?.trueHeading == 274.07)
        #expect(first.timestamp == scheduler.wallClock(at: 0))
        #expect(first.accuracy == GNSSHeading.accuracy)
        let second = try #require(recorder.samples.last)
        #expect(second.reported?.magneticHeading == 98.3)
        #expect(second.timestamp == scheduler.wallClock(at: 1.5))
        source.stop()
        source.feed(Array((nmea("GPHDT,10.0,T") + "\r\n").utf8))
        #expect(recorder.samples.count == 2)
    }

    /// gpsd: WATCH on connect, ATT lines become samples, a closed connection is reported and retried
    /// after the backoff on the scheduler; a stale connection's bytes are ignored.
    @Test func gpsdSourceReadsATTAndReconnects() throws {
        let scheduler = ManualScheduler()
        let transport = ScriptedGPSDTransport(clock: { scheduler.now })
        let backoff = GPSDBackoff(initial: 0.5, cap: 4)
        let source = GPSDHeadingSource(transport: transport, scheduler: scheduler, backoff: backoff)
        let recorder = GNSSHeadingRecorder()
        source.start(recorder.handler)
        let first = try #require(transport.channels.first)
        first.deliver(.connected)
        #expect(first.sent.contains { $0.hasPrefix("?WATCH=") && $0.contains(#""json":true"#) })
        let att = #"{"class":"ATT","device":"/dev/ttyS0","heading":201.25,"mheading":198.5,"mag_st":"N"}"#
        let tpv = #"{"class":"TPV","mode":3,"lat":48.1,"lon":11.5}"#
        first.deliver(.bytes(Array((tpv + "\n" + att + "\n").utf8)))
        let sample = try #require(recorder.samples.first)
        #expect(recorder.samples.count == 1)
        #expect(sample.reported == ReportedHeading(trueHeading: 201.25, magneticHeading: 198.5))

        first.deliver(.closed(reason: "connection reset"))
        #expect(recorder.unavailable.count == 1)
        #expect(transport.channels.count == 1)
        scheduler.advance(by: backoff.delay(afterFailures: 0) - 0.01)
        #expect(transport.channels.count == 1)
        scheduler.advance(by: 0.01)
        #expect(transport.channels.count == 2)
        #expect(transport.openTimes.last == backoff.delay(afterFailures: 0))

        first.deliver(.bytes(Array((att + "\n").utf8)))
        #expect(recorder.samples.count == 1)
        let second = try #require(transport.channels.last)
        second.deliver(.connected)
        second.deliver(.bytes(Array((att + "\n").utf8)))
        #expect(recorder.samples.count == 2)
        source.stop()
        #expect(second.isClosed)
        second.deliver(.bytes(Array((att + "\n").utf8)))
        #expect(recorder.samples.count == 2)
    }

    @Test func configurationChoosesTheSource() throws {
        let scheduler = ManualScheduler()
        let gpsd = try GNSSHeadingConfiguration.source(from: "gpsd://10.0.0.2:2948", scheduler: scheduler)
        #expect((gpsd as? GPSDHeadingSource)?.endpoint == GPSDEndpoint(host: "10.0.0.2", port: 2948))
        let serial = try GNSSHeadingConfiguration.source(from: "serial:/dev/ttyUSB1?baud=4800", scheduler: scheduler)
        #expect((serial as? NMEAHeadingSource)?.input == .serial(path: "/dev/ttyUSB1", baud: 4800))
        let tcp = try GNSSHeadingConfiguration.source(from: "tcp://192.168.1.5:10110", scheduler: scheduler)
        #expect((tcp as? NMEAHeadingSource)?.input == .tcp(host: "192.168.1.5", port: 10110))
        #expect(throws: (any Error).self) { try GNSSHeadingConfiguration.source(from: "bogus", scheduler: scheduler) }
    }
}

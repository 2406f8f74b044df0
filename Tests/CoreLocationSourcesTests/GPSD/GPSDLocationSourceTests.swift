import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

@Suite struct GPSDLocationSourceTests {
    let scheduler = ManualScheduler()
    let transport: ScriptedGPSDTransport
    let source: GPSDLocationSource
    let recorder = EventRecorder()

    init() {
        let scheduler = self.scheduler
        transport = ScriptedGPSDTransport { scheduler.now }
        source = GPSDLocationSource(
            endpoint: GPSDEndpoint(host: "gpsd.test", port: 2947), transport: transport, scheduler: scheduler)
    }

    @Test func watchesAndDeliversOneFixPerEpoch() throws {
        source.start(recorder.handler)
        let channel = try #require(transport.channels.first)
        channel.deliver(.connected)
        #expect(channel.sent == [#"?WATCH={"enable":true,"json":true}"#])
        channel.deliver(.bytes(try recordedGPSDOutput()))
        // 11 TPVs, the first epoch twice: 10 fixes, one per second of walk.nmea.
        #expect(recorder.fixes.map(\.timestamp.timeIntervalSince1970) == (0..<10).map { 1_710_504_000 + Double($0) })
        #expect(recorder.unavailableCount == 0)
        let status = source.status
        #expect(status.isConnected && status.isPowered && status.release == "3.22")
        #expect(status.satellitesInView == 10 && status.satellitesUsed == 8)
        #expect(status.lastFix == recorder.fixes.last)
        #expect(source.descriptor.id.rawValue == "gpsd://gpsd.test:2947" && !source.descriptor.isSimulated)
        source.stop()
        #expect(channel.isClosed)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func noFixReportsUnavailableOnceAndRecovers() throws {
        source.start(recorder.handler)
        let channel = try #require(transport.channels.first)
        channel.deliver(.connected)
        let noFix = #"{"class":"TPV","mode":1}"# + "\n"
        channel.deliver(.bytes(Array((noFix + noFix).utf8)))
        #expect(recorder.unavailableCount == 1)
        let fix = #"{"class":"TPV","mode":2,"time":"2024-03-15T12:00:00.000Z","lat":48.1,"lon":11.5,"eph":10}"# + "\n"
        channel.deliver(.bytes(Array((fix + fix + noFix).utf8)))
        #expect(recorder.fixes.count == 1)
        #expect(recorder.unavailableCount == 2)
        source.stop()
    }

    /// gpsd down: retries at 0.125, 0.25, 0.5, 1, 1 s intervals (no sleeping: the manual clock);
    /// one `.unavailable` for the whole outage; fixes resume on the first successful connection.
    @Test func reconnectsWithCappedBackoff() throws {
        source.start(recorder.handler)
        #expect(transport.openTimes == [0])
        transport.channels[0].deliver(.closed(reason: "Connection refused"))
        #expect(recorder.unavailableCount == 1)
        var expectedTimes: [Double] = [0]
        var time = 0.0
        for delay in [0.125, 0.25, 0.5, 1, 1, 1] {
            scheduler.advance(by: delay - 1e-9)
            #expect(transport.openTimes == expectedTimes, "no attempt before the backoff is over")
            scheduler.advance(by: 1e-9)
            time += delay
            expectedTimes.append(time)
            #expect(transport.openTimes.count == expectedTimes.count)
            #expect(abs((transport.openTimes.last ?? -1) - time) < 1e-9)
            transport.channels[transport.channels.count - 1].deliver(.closed(reason: "Connection refused"))
        }
        #expect(recorder.unavailableCount == 1)
        // gpsd is back: the next attempt (≤ 1 s away) connects and fixes flow again.
        scheduler.advance(by: 1)
        let channel = try #require(transport.channels.last)
        channel.deliver(.connected)
        channel.deliver(.bytes(try recordedGPSDOutput()))
        #expect(recorder.fixes.count == 10)
        // A line cut off by the loss is not glued to the first line of the next connection.
        channel.deliver(.bytes(Array(#"{"class":"TPV","mode":3,"la"#.utf8)))
        // A later loss starts the backoff from the beginning.
        let attempts = transport.openTimes.count
        channel.deliver(.closed(reason: "gpsd closed the connection"))
        #expect(recorder.unavailableCount == 2)
        scheduler.advance(by: 0.125)
        #expect(transport.openTimes.count == attempts + 1)
        let next = try #require(transport.channels.last)
        next.deliver(.connected)
        next.deliver(.bytes(Array((#"{"class":"VERSION","release":"3.22"}"# + "\n").utf8)))
        #expect(source.status.invalidLines == 0)
        source.stop()
        #expect(scheduler.pendingCount == 0)
    }

    @Test func nothingArrivesAfterStop() throws {
        source.start(recorder.handler)
        let channel = try #require(transport.channels.first)
        channel.deliver(.connected)
        source.stop()
        channel.deliver(.bytes(try recordedGPSDOutput()))
        channel.deliver(.closed(reason: "closed"))
        #expect(recorder.events.isEmpty)
        #expect(scheduler.pendingCount == 0)
        // And it starts again, on a fresh connection.
        source.start(recorder.handler)
        #expect(transport.channels.count == 2)
        source.stop()
    }

    /// Regression: a refused connect reported before `open` returned left the source waiting on a
    /// dead channel forever; a `connected` that early lost the WATCH request.
    @Test func eventsBeforeOpenReturnsAreHandled() throws {
        let scheduler = ManualScheduler()
        let transport = ScriptedGPSDTransport(clock: { scheduler.now }) { index in
            index < 2 ? [.closed(reason: "Connection refused")] : [.connected]
        }
        let source = GPSDLocationSource(transport: transport, scheduler: scheduler)
        source.start(recorder.handler)
        scheduler.advance(by: 0.125)
        scheduler.advance(by: 0.25)
        #expect(transport.openTimes == [0, 0.125, 0.375])
        let channel = try #require(transport.channels.last)
        #expect(channel.sent == [GPSDLocationSource.watchRequest])
        channel.deliver(.bytes(try recordedGPSDOutput()))
        #expect(recorder.fixes.count == 10)
        source.stop()
        #expect(scheduler.pendingCount == 0)
    }

    @Test func backoffSequence() {
        let backoff = GPSDBackoff()
        #expect((1...7).map(backoff.delay(afterFailures:)) == [0.125, 0.25, 0.5, 1, 1, 1, 1])
        #expect(backoff.delay(afterFailures: 10_000) == 1)
    }
}

import AsyncHTTPClient
import CoreLocationReporting
import Foundation
import Testing

/// The real uploader, through the receiving server, with the faults of issue 12.
@Suite(.serialized) struct UploadTests {
    static func queue(_ count: Int, kind: ReportKind = .track) throws -> ReportQueue {
        let queue = try ReportQueue(inMemoryFor: "phone")
        for i in 0..<count {
            let f = fix(x: Double(i) * 50, t: Double(i) * 10, speed: 5)
            try queue.enqueue(
                ReportDecision(kind: i == 0 ? kind : .track, point: ReportPoint(f), decidedAt: f.timestamp, reason: ""),
                at: epoch.addingTimeInterval(1000))
        }
        return queue
    }

    static func deliverer(_ queue: ReportQueue, _ to: String, timeout: Double = 10, sleeper: SleepRecorder)
        throws -> ReportDeliverer
    {
        let uploader = HTTPReportUploader(endpoint: try ReportEndpoint.parse(to, device: "phone"), timeout: timeout)
        return ReportDeliverer(queue: queue, uploader: uploader, sleep: sleeper.sleep)
    }

    static func tst(_ r: ReportServer.Received) -> [Int] { r.messages.compactMap { $0["tst"] as? Int } }

    let times = (0..<5).map { 1_700_000_000 + $0 * 10 }

    @Test func ownTracksDeliversInOrderWithFixTimes() async throws {
        let server = try await ReportServer.start(["--user", "alice", "--password", "s3cret"])
        defer { server.stop() }
        let queue = try Self.queue(5, kind: .departure)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "owntracks+http://alice:s3cret@\(server.base)/pub?d=phone", sleeper: sleeper)
            .drain()
        #expect(outcome.delivered == 5)
        #expect(outcome.stoppedBy == nil)
        #expect(try queue.state().count == 0)
        let received = try await server.received()
        #expect(Self.tst(received) == times)
        let first = try #require(received.stored.first)
        #expect(first["user"] as? String == "alice")
        #expect(first["device"] as? String == "phone")
        let message = try #require(received.messages.first)
        #expect(message["_type"] as? String == "location")
        #expect(message["created_at"] as? Int == 1_700_001_000)  // queued, not measured
        #expect(message["vel"] as? Int == 18)  // 5 m/s = 18 km/h
        #expect(message["acc"] as? Int == 5)
        #expect(message["tid"] as? String == "ne")
        #expect(message["t"] as? String == "c")
        #expect(message["event"] as? String == "departure")
        #expect(message["_id"] as? String == "phone:departure:1700000000000")
        #expect(received.messages.dropFirst().allSatisfy { $0["t"] as? String == "t" })
    }

    @Test func osmAndDeliversInKnotsAndUnknownDeviceStops() async throws {
        let server = try await ReportServer.start(["--device", "4711"])
        defer { server.stop() }
        let queue = try Self.queue(3)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "osmand+http://\(server.base)/osmand?id=4711", sleeper: sleeper).drain()
        #expect(outcome.delivered == 3)
        let received = try await server.received()
        #expect(received.messages.map { $0["timestamp"] as? String } == times.prefix(3).map { String($0) })
        #expect(received.messages.first?["speed"] as? String == "9.72")  // 5 m/s / (1852/3600)
        #expect(received.messages.first?["id"] as? String == "4711")
        let other = try Self.queue(2)
        let refused = try await Self.deliverer(other, "osmand+http://\(server.base)/osmand?id=999", sleeper: sleeper).drain()
        #expect(refused.stoppedBy?.code == .unknownDevice)
        #expect(refused.stoppedBy?.message.contains("999") == true)
        #expect(try other.state().count == 2)
    }

    @Test func serverErrorsAreRetriedInOrderWithBackoff() async throws {
        let server = try await ReportServer.start()
        defer { server.stop() }
        try await server.fault(#"{"kind": "status", "status": 500, "count": 2}"#)
        try await server.fault(#"{"kind": "status", "status": 429, "retry_after": 7, "count": 1}"#)
        let queue = try Self.queue(5)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "owntracks+http://\(server.base)/pub", sleeper: sleeper).drain()
        #expect(outcome.delivered == 5)
        #expect(outcome.waits.count == 3)
        #expect(outcome.waits == sleeper.recorded)
        // Equal jitter: the n-th wait in [2^(n−1)/2, 2^(n−1)] s; the third honours Retry-After: 7.
        #expect(outcome.waits[0] >= 0.5 && outcome.waits[0] <= 1)
        #expect(outcome.waits[1] >= 1 && outcome.waits[1] <= 2)
        #expect(outcome.waits[2] >= 7)
        let received = try await server.received()
        #expect(Self.tst(received) == times)
        #expect(received.requests == 8)
    }

    /// A reply slower than the timeout, and a reply lost after the point was stored: the retry
    /// carries the same idempotency key and the server keeps one copy.
    @Test func lostAndSlowRepliesDoNotDuplicate() async throws {
        let server = try await ReportServer.start()
        defer { server.stop() }
        try await server.fault(#"{"kind": "lose_reply", "count": 1}"#)
        // The slow reply comes 12 times the timeout late: under load the client's timer (on a shared NIO event
        // loop) once fired after a 2 s reply had arrived, and the slow request then counted as answered.
        try await server.fault(#"{"kind": "slow", "seconds": 6, "count": 1}"#)
        let queue = try Self.queue(5)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "owntracks+http://\(server.base)/pub", timeout: 0.5, sleeper: sleeper)
            .drain()
        #expect(outcome.delivered == 5)
        #expect(outcome.waits.count == 2, "\(outcome.waits)")
        // The slow request stores its copy when its 6 s are up.
        let deadline = Date().addingTimeInterval(30)
        while try await server.received().duplicates < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        let received = try await server.received()
        #expect(Self.tst(received) == times)
        #expect(received.duplicates == 2)
    }

    @Test func refusedConnectionsAndARestartLoseNothing() async throws {
        var server = try await ReportServer.start()
        let queue = try Self.queue(2)
        let sleeper = SleepRecorder()
        let deliverer = try Self.deliverer(queue, "owntracks+http://\(server.base)/pub", sleeper: sleeper)
        #expect(await deliverer.drain().delivered == 2)
        server.stop()
        for i in 2..<5 {
            let f = fix(x: Double(i) * 50, t: Double(i) * 10, speed: 5)
            try queue.enqueue(ReportDecision(kind: .track, point: ReportPoint(f), decidedAt: f.timestamp, reason: ""), at: epoch)
        }
        let refused = await deliverer.drain(maximumAttempts: 3)
        #expect(refused.stoppedBy?.code == .transport)
        #expect(refused.waits.count == 2)
        #expect(try queue.state().count == 3)
        server = try await server.restart()
        defer { server.stop() }
        #expect(await deliverer.drain().delivered == 3)
        let received = try await server.received()
        #expect(Self.tst(received) == times)
        #expect(received.duplicates == 0)
    }

    @Test func badCredentialsStopAndKeepTheQueue() async throws {
        let server = try await ReportServer.start(["--user", "alice", "--password", "s3cret"])
        defer { server.stop() }
        let queue = try Self.queue(3)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "owntracks+http://alice:wrong@\(server.base)/pub", sleeper: sleeper)
            .drain()
        #expect(outcome.stoppedBy?.code == .unauthorized)
        #expect(outcome.stoppedBy?.message.contains("refused the credentials (401)") == true)
        #expect(outcome.waits.isEmpty)
        #expect(try queue.state().count == 3)
        #expect(try await server.received().stored.isEmpty)
    }

    @Test func anHTMLAnswerIsNotADelivery() async throws {
        let server = try await ReportServer.start()
        defer { server.stop() }
        try await server.fault(#"{"kind": "html", "count": 1}"#)
        let queue = try Self.queue(2)
        let sleeper = SleepRecorder()
        let outcome = try await Self.deliverer(queue, "owntracks+http://\(server.base)/pub", sleeper: sleeper).drain()
        #expect(outcome.stoppedBy?.code == .wrongServer)
        #expect(outcome.stoppedBy?.message.contains("text/html") == true)
        #expect(try queue.state().count == 2)
        let wrongPath = try await Self.deliverer(queue, "owntracks+http://\(server.base)/", sleeper: sleeper).drain()
        #expect(wrongPath.stoppedBy?.code == .wrongServer)
    }

    @Test func endpointURLs() throws {
        #expect(throws: ReportingError.self) { try ReportEndpoint.parse("mqtt://broker:1883/owntracks") }
        do {
            _ = try ReportEndpoint.parse("mqtt://broker:1883/owntracks")
        } catch let error as ReportingError {
            #expect(error.code == .badURL)
            #expect(error.message.contains("unknown URL scheme \"mqtt\""))
            #expect(error.message.contains("owntracks+http"))
        }
        let own = try ReportEndpoint.parse("owntracks+https://bob:p%40ss@example.org:8083/pub?u=bob&d=car")
        #expect(own.wire == .ownTracks)
        #expect(own.url == "https://example.org:8083/pub")
        #expect(own.password == "p@ss")
        #expect(own.limitUser == "bob")
        #expect(own.device == "car")
        let osm = try ReportEndpoint.parse("osmand+http://traccar:5055?id=123456")
        #expect(osm.wire == .osmAnd)
        #expect(osm.url == "http://traccar:5055/")
        #expect(osm.device == "123456")
    }

    /// Credentials from a file or the environment (not the URL): `X-Limit-U` follows their user unless `u` named one.
    @Test func credentialsGivenApart() throws {
        let plain = try ReportEndpoint.parse("owntracks+http://host:8083/pub").authenticated(user: "ann", password: "x")
        #expect(plain.user == "ann" && plain.password == "x" && plain.limitUser == "ann")
        let named = try ReportEndpoint.parse("owntracks+http://host:8083/pub?u=family")
            .authenticated(user: "ann", password: "x")
        #expect(named.limitUser == "family")
    }
}

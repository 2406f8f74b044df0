import CoreLocationGPSDTestSupport
import CoreLocationReporting
import Foundation
import GRDB
import Testing

@Suite struct ReportQueueTests {
    static func decision(_ kind: ReportKind = .track, x: Double, y: Double = 0, t: Double) -> ReportDecision {
        let f = fix(x: x, y: y, t: t)
        return ReportDecision(kind: kind, point: ReportPoint(f), decidedAt: f.timestamp, reason: "test")
    }

    /// On disk: survives closing and reopening (a kill), oldest first, one copy per key, mode 0600, WAL.
    @Test func durableOrderedIdempotent() throws {
        let scratch = try ScratchDirectory("reportq")
        let path = scratch.path("queue.sqlite")
        do {
            let queue = try ReportQueue(path: path, device: "phone")
            for i in 0..<5 { try queue.enqueue(Self.decision(x: Double(i) * 100, t: Double(i)), at: epoch) }
            #expect(try queue.enqueue(Self.decision(x: 0, t: 0), at: epoch) == nil)  // same key
        }
        let queue = try ReportQueue(path: path, device: "phone")
        let reports = try queue.oldest(10)
        #expect(reports.map(\.point.timestamp) == (0..<5).map { epoch.addingTimeInterval(Double($0)) })
        #expect(reports.map(\.key) == (0..<5).map { "phone:track:\(1_700_000_000_000 + $0 * 1000)" })
        #expect(reports.allSatisfy { $0.enqueuedAt == epoch })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        try queue.remove([reports[0].sequence, reports[1].sequence])
        #expect(try queue.oldest(10).map(\.sequence) == reports[2...].map(\.sequence))
    }

    /// Full: collinear track points go first (within ε); arrivals and departures are never removed.
    @Test func thinningKeepsArrivalsAndDepartures() throws {
        let queue = try ReportQueue(inMemoryFor: "phone", capacity: 5, thinningEpsilon: 10)
        try queue.enqueue(Self.decision(.departure, x: 0, t: 0), at: epoch)
        try queue.enqueue(Self.decision(x: 100, t: 10), at: epoch)  // on the line: removable within ε
        try queue.enqueue(Self.decision(x: 200, t: 20), at: epoch)
        try queue.enqueue(Self.decision(x: 300, y: 80, t: 30), at: epoch)  // a corner: 80 m off
        try queue.enqueue(Self.decision(.arrival, x: 400, t: 40), at: epoch)
        try queue.enqueue(Self.decision(.departure, x: 400, t: 1000), at: epoch)
        var times = try queue.oldest(10).map { $0.point.timestamp.timeIntervalSince(epoch) }
        #expect(times == [0, 20, 30, 40, 1000])  // t = 10 went: within ε of 0 → 20
        try queue.enqueue(Self.decision(x: 500, t: 1010), at: epoch)
        times = try queue.oldest(10).map { $0.point.timestamp.timeIntervalSince(epoch) }
        #expect(times == [0, 30, 40, 1000, 1010])  // none within ε; t = 20 is least off (53 m)
        try queue.enqueue(Self.decision(.arrival, x: 600, t: 2000), at: epoch)
        try queue.enqueue(Self.decision(.departure, x: 600, t: 3000), at: epoch)
        try queue.enqueue(Self.decision(.arrival, x: 700, t: 4000), at: epoch)
        let kinds = try queue.oldest(20).map(\.kind)
        #expect(kinds.filter { $0 == .arrival || $0 == .departure }.count == 6)
        #expect(try queue.state().thinned == 4)
        #expect(try queue.state().thinnedBeyondEpsilon == 3)
    }

    /// A full disk (simulated with SQLite's max_page_count, as no small tmpfs can be mounted
    /// without root): `diskFull`, and what was queued before stays.
    @Test func fullDiskSaysSoAndKeepsTheQueue() throws {
        let scratch = try ScratchDirectory("reportq")
        let path = scratch.path("queue.sqlite")
        let queue = try ReportQueue(path: path, device: "phone", maximumPageCount: 8)
        var queued = 0
        var failure: (any Error)?
        for i in 0..<5000 {
            do {
                try queue.enqueue(Self.decision(x: Double(i), t: Double(i)), at: epoch)
                queued += 1
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure as? ReportingError)
        #expect(error.code == .diskFull)
        #expect(error.message.contains("full"))
        #expect(queued > 10)
        #expect(try queue.state().count == queued)
        let reopened = try ReportQueue(path: path, device: "phone")
        #expect(try reopened.oldest(100_000).count == queued)
    }
}

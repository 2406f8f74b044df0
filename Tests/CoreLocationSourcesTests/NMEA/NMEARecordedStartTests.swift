import Foundation
import Synchronization
import Testing

@testable import CoreLocationSources

/// `NMEAStreamSource.recordedStart`: the date an NMEA replay's instant 0 stands for, which an `.imu.csv` replay beside
/// it is placed by (decision 0095, Wiring).
@Suite struct NMEARecordedStartTests {
    /// The GlobalSat log's first sentence and first fix are both of 03:07:19.000 on 31 December 2014 (RMC's date).
    @Test func isTheFirstFixLessItsGapFromTheFirstSentence() throws {
        let start = try #require(NMEAStreamSource.recordedStart(path: fixturePath("nmea/globalsat-bu353s4.nmea")))
        #expect(start == ISO8601DateFormatter().date(from: "2014-12-31T03:07:19Z"))
    }

    /// The property an IMU replay relies on: on a timeline whose instant 0 is that date, the replay hands out every
    /// fix at the instant its timestamp stands for (the log's 1 Hz epochs, to the millisecond).
    @Test func aReplayOnThatTimelineHandsEachFixOutAtItsTimestamp() throws {
        let path = fixturePath("nmea/globalsat-bu353s4.nmea")
        let origin = try #require(NMEAStreamSource.recordedStart(path: path))
        let scheduler = ManualScheduler(wallOrigin: origin)
        let source = NMEAStreamSource(input: .file(path: path, pace: .realTime), scheduler: scheduler)
        let seen = Mutex<[(instant: Double, timestamp: Date)]>([])
        source.start { event in
            if case let .fix(fix) = event { seen.withLock { $0.append((scheduler.now, fix.timestamp)) } }
        }
        scheduler.advance(by: 600)
        source.stop()
        let fixes = seen.withLock { $0 }
        #expect(fixes.count >= 3)
        for (instant, timestamp) in fixes {
            #expect(abs(scheduler.wallClock(at: instant).timeIntervalSince(timestamp)) < 1e-3, "\(instant) \(timestamp)")
        }
    }

    @Test func isNilWithoutAFile() {
        #expect(NMEAStreamSource.recordedStart(path: "/nonexistent/drive.nmea") == nil)
    }
}

import Foundation
import Synchronization
import Testing

@testable import CoreLocationSources

/// `ReplayScheduler`: the recording's timeline (decision 0020). Real threads, bounded waits; no
/// assertion on how long anything took.
@Suite struct ReplaySchedulerTests {
    /// Runs `body` on a scheduler and waits (at most 10 s) until `done` is signalled.
    private func withScheduler(
        speed: Double, _ body: (ReplayScheduler, DispatchSemaphore) -> Void
    ) -> Bool {
        let scheduler = ReplayScheduler(speed: speed, wallOrigin: Date(timeIntervalSince1970: 1_000))
        defer { scheduler.shutdown() }
        let done = DispatchSemaphore(value: 0)
        body(scheduler, done)
        return done.wait(timeout: .now() + 10) == .success
    }

    /// Steps run in deadline order (ties in scheduling order), `now` is each step's deadline exactly,
    /// a step scheduled in the past runs at `now`, and a cancelled one never runs — at any speed.
    @Test(arguments: [Double.infinity, 2_000])
    func stepsRunInDeadlineOrderAtTheirInstant(speed: Double) {
        let seen = Mutex<[String]>([])
        let finished = withScheduler(speed: speed) { scheduler, done in
            @Sendable func note(_ label: String) { seen.withLock { $0.append("\(label)@\(scheduler.now)") } }
            // Scheduled from a step of the timeline itself: from the test's thread, the timeline (already
            // running since the first call) ran "c" at once at infinite speed, before "a" was scheduled.
            scheduler.schedule(at: 0) {
                scheduler.schedule(at: 30) { note("c") }
                scheduler.schedule(at: 10) {
                    note("a")
                    scheduler.schedule(at: 5) { note("late") }
                    scheduler.schedule(at: 20) { note("b2") }
                }
                scheduler.schedule(at: 20) { note("b1") }
                scheduler.schedule(at: 25) { note("never") }.cancel()
                scheduler.schedule(at: 40) {
                    note("end")
                    done.signal()
                }
            }
        }
        #expect(finished)
        #expect(seen.withLock { $0 } == ["a@10.0", "late@10.0", "b1@20.0", "b2@20.0", "c@30.0", "end@40.0"])
    }

    @Test func wallClockIsTheRecordingsDate() {
        let scheduler = ReplayScheduler(speed: 1, wallOrigin: Date(timeIntervalSince1970: 1_000))
        #expect(scheduler.wallClock(at: 60) == Date(timeIntervalSince1970: 1_060))
        #expect(scheduler.now == 0)
    }

    /// With a flow attached, the timeline does not move past a step while the consumer is behind:
    /// a timer due later waits until deliveries are consumed.
    @Test func theTimelineWaitsForTheConsumer() {
        let flow = DeliveryFlow(limit: 2)
        let order = Mutex<[String]>([])
        let produced = DispatchSemaphore(value: 0)
        let finished = withScheduler(speed: .infinity) { scheduler, done in
            scheduler.attach(flow)
            scheduler.schedule(at: 1) {
                flow.sent(2)
                order.withLock { $0.append("produced") }
                produced.signal()
            }
            scheduler.schedule(at: 2) {
                order.withLock { $0.append("timer") }
                done.signal()
            }
            // The consumer: once the step has produced, consumes (on another thread).
            DispatchQueue.global().async {
                guard produced.wait(timeout: .now() + 10) == .success else { return }
                order.withLock { $0.append("consumed") }
                flow.done(2)
            }
        }
        #expect(finished)
        #expect(order.withLock { $0 } == ["produced", "consumed", "timer"])
    }

    /// `holding`: work scheduled from outside the timeline while it holds does not start, and no step continues
    /// inline, until it returns — two replays started together from a client's command both begin at instant 0.
    @Test func nothingStartsWhileTheTimelineIsHeld() {
        let seen = Mutex<[String]>([])
        let finished = withScheduler(speed: .infinity) { scheduler, done in
            scheduler.holding {
                scheduler.schedule(at: 0) {
                    // A replay going on alone would run ahead; the other replay's step is pending at 0 already.
                    seen.withLock { $0.append("a@\(scheduler.now) inline:\(scheduler.continueInline(to: 5))") }
                }
                // Nothing ran yet, though the timeline's thread was started by the first call.
                seen.withLock { $0.append("held:\($0.count)") }
                scheduler.schedule(at: 0) { seen.withLock { $0.append("b@\(scheduler.now)") } }
            }
            scheduler.schedule(at: 1) { done.signal() }
        }
        #expect(finished)
        #expect(seen.withLock { $0 } == ["held:0", "a@0.0 inline:false", "b@0.0"])
    }
}

import Foundation
import Synchronization
import Testing

@testable import CoreLocationSources

/// `DeliveryFlow`: backpressure between a replay and its consumer. Real threads with bounded waits;
/// the test itself waits with `Task.sleep`, never blocking the test process's pool.
@Suite struct DeliveryFlowTests {
    /// Waits until `condition` holds, at most 10 s.
    private func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// A continuation registered while `done` is still running an earlier one runs after it, not at
    /// once on the registering thread: a replay's timeline relies on its source's step being scheduled
    /// before it goes on (the race let the engine's no-fix timer run before the next epoch).
    @Test func continuationsRunInTheOrderTheyWereRegistered() async throws {
        let flow = DeliveryFlow(limit: 2)
        flow.sent(2)
        let order = Mutex<[String]>([])
        let firstRunning = DispatchSemaphore(value: 0)
        let secondRegistered = DispatchSemaphore(value: 0)
        flow.whenReady {
            firstRunning.signal()
            _ = secondRegistered.wait(timeout: .now() + 10)
            order.withLock { $0.append("first") }
        }
        #expect(order.withLock { $0 }.isEmpty, "the flow is full: nothing runs yet")
        Thread { flow.done(2) }.start()
        Thread {
            _ = firstRunning.wait(timeout: .now() + 10)
            flow.whenReady { order.withLock { $0.append("second") } }
            secondRegistered.signal()
        }.start()
        try await eventually { order.withLock { $0.count } == 2 }
        #expect(order.withLock { $0 } == ["first", "second"])
    }

    /// The rules themselves: at once below the limit; at the limit, once the consumer is down to half.
    @Test func waitersResumeAtHalfTheLimit() {
        let flow = DeliveryFlow(limit: 4)
        let runs = Atomic(0)
        flow.whenReady { runs.add(1, ordering: .relaxed) }
        #expect(runs.load(ordering: .relaxed) == 1)
        flow.sent(4)
        flow.whenReady { runs.add(1, ordering: .relaxed) }
        flow.done(1)
        #expect(runs.load(ordering: .relaxed) == 1, "3 in flight: more than half of 4")
        flow.done(1)
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(flow.inFlight == 2)
    }
}

extension DeliveryFlowTests {
    /// Below the limit but with a producer still waiting (the consumer is not yet down to half), a new
    /// continuation waits its turn: running it at once let a replay's timeline run an engine timer
    /// before the waiting source had scheduled its next epoch ("no fix for a while" mid-recording).
    @Test func aLaterProducerWaitsBehindAnEarlierOne() {
        let flow = DeliveryFlow(limit: 4)
        let order = Mutex<[String]>([])
        flow.sent(4)
        flow.whenReady { order.withLock { $0.append("source") } }
        flow.done(1)
        #expect(!flow.isReady, "3 in flight, a producer waiting")
        flow.whenReady { order.withLock { $0.append("timeline") } }
        #expect(order.withLock { $0 }.isEmpty)
        flow.done(1)
        #expect(order.withLock { $0 } == ["source", "timeline"])
        #expect(flow.isReady)
    }
}

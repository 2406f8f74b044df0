import CoreLocationSources
import Dispatch
import Foundation
import Synchronization

/// Where a `CLLocationManager` delivers its delegate calls: the run loop of the thread that created
/// it, as on Apple's platforms.
///
/// A manager made on the main thread delivers through the main dispatch queue, which
/// `RunLoop.main.run()`, `dispatchMain()` and Swift concurrency's main actor all drain. A manager
/// made on another thread delivers through that thread's run loop, which the app must run (as on
/// Apple's platforms). Calls are queued in a FIFO mailbox so they arrive in the order the engine
/// produced them, whatever the run loop does with timers of equal fire dates.
package final class CallbackTarget: Sendable {
    private enum Destination {
        case mainQueue
        case runLoop(RunLoopReference)
        /// Holds work until `runPending()`; for deterministic tests.
        case manual
    }

    private let destination: Destination
    private let mailbox = Mutex<(work: [@Sendable () -> Void], scheduled: Bool)>(([], false))

    private init(destination: Destination) {
        self.destination = destination
    }

    /// The target for code running now on this thread.
    ///
    /// "Main" means the main thread or the main queue: on Linux, once `dispatchMain()` or an async
    /// `main` has started, the main queue (and so the main actor) is drained by a dispatch worker
    /// thread for which `Thread.isMainThread` is false.
    package static func current() -> CallbackTarget {
        if Thread.isMainThread || isOnMainQueue { return CallbackTarget(destination: .mainQueue) }
        return CallbackTarget(destination: .runLoop(RunLoopReference(RunLoop.current)))
    }

    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    package static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// A target that holds delegate calls until `runPending()`, like a run loop that turns only
    /// when a test says so. Tests use it with `ManualScheduler` for deterministic delivery.
    package static func manual() -> CallbackTarget { CallbackTarget(destination: .manual) }

    /// Runs everything a manual target holds (and anything that work enqueues).
    package func runPending() {
        mailbox.withLock { $0.scheduled = true }
        runMailbox()
    }

    package var isMainThread: Bool {
        if case .mainQueue = destination { return true }
        return false
    }

    /// Runs `work` on the target, after everything enqueued before it.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        let needsWakeUp = mailbox.withLock { box -> Bool in
            box.work.append(work)
            if box.scheduled { return false }
            box.scheduled = true
            return true
        }
        guard needsWakeUp else { return }
        // From a replay step: once the step is over (it may hand out many events; see `WakeUpDeferral`).
        WakeUpDeferral.wake { self.wakeUp() }
    }

    private func wakeUp() {
        switch destination {
        case .mainQueue:
            DispatchQueue.main.async { self.runMailbox() }
        case let .runLoop(reference):
            reference.perform { self.runMailbox() }
        case .manual:
            break
        }
    }

    /// Like `enqueue`, counting the work in `flow` until it has run, so that a replay waits for this
    /// thread (backpressure). A manual target does not count: its work runs when a test says so.
    package func enqueue(counting flow: DeliveryFlow, _ work: @escaping @Sendable () -> Void) {
        if case .manual = destination { return enqueue(work) }
        flow.sent()
        enqueue {
            work()
            flow.done()
        }
    }

    private func runMailbox() {
        while true {
            let batch = mailbox.withLock { box -> [@Sendable () -> Void] in
                let work = box.work
                box.work.removeAll()
                if work.isEmpty { box.scheduled = false }
                return work
            }
            if batch.isEmpty { return }
            for work in batch { work() }
            if case .manual = destination { continue }
            // One batch per turn: other work on this thread (an async consumer of the delegate's
            // events, e.g. `for await` on the main actor) runs before the next batch, so a fast
            // producer cannot keep this loop busy while what it delivered piles up downstream.
            let more = mailbox.withLock { box -> Bool in
                if box.work.isEmpty { box.scheduled = false }
                return !box.work.isEmpty
            }
            if more { wakeUp() }
            return
        }
    }
}

/// A run loop that other threads may schedule work on.
///
/// `@unchecked Sendable` is safe here because the only thing done with the run loop from other
/// threads is adding a timer (`RunLoop.add(_:forMode:)`), which is backed by `CFRunLoopAddTimer`,
/// documented thread-safe: Core Foundation locks the run loop and re-arms its wake-up port.
private final class RunLoopReference: @unchecked Sendable {  // Sendable: safety argued in the comment above
    package let runLoop: RunLoop

    package init(_ runLoop: RunLoop) {
        self.runLoop = runLoop
    }

    package func perform(_ work: @escaping @Sendable () -> Void) {
        let timer = Timer(timeInterval: 0, repeats: false) { _ in work() }
        runLoop.add(timer, forMode: .default)
    }
}

import CoreLocation
import Foundation

extension ManagerBridge {
    /// The delegate's calls as an async sequence for a consumer on the main actor.
    ///
    /// An `AsyncStream` of the events themselves hands its consumer one event per turn of the main
    /// queue (every `next()` suspends and is resumed through the queue), while a delegate batch puts
    /// hundreds on it in one turn: during a replay at full speed the stream's buffer grew with the
    /// recording (decision 0036). Here the delegate calls queue their events in `queue`, and the
    /// iterator takes the whole queue at once and hands the events out without suspending; it
    /// suspends only when nothing is queued, on a wake-up stream that holds at most one token.
    /// `.locations` events stay counted in the runtime's `DeliveryFlow` until handed out
    /// (`countDeliveries(in:)`), so the replay waits for this loop.
    struct Events: AsyncSequence {
        typealias Element = Event
        typealias Failure = Never
        let bridge: ManagerBridge

        func makeAsyncIterator() -> Iterator {
            Iterator(bridge: bridge, wakeUps: bridge.wakeUps.makeAsyncIterator())
        }

        struct Iterator: AsyncIteratorProtocol {
            let bridge: ManagerBridge
            var wakeUps: AsyncStream<Void>.Iterator
            private var taken: [Event] = []
            private var index = 0

            init(bridge: ManagerBridge, wakeUps: AsyncStream<Void>.Iterator) {
                self.bridge = bridge
                self.wakeUps = wakeUps
            }

            mutating func next(isolation actor: isolated (any Actor)?) async -> Event? {
                while true {
                    if index < taken.count {
                        let event = taken[index]
                        index += 1
                        bridge.handedOut(event)
                        return event
                    }
                    taken = bridge.queue.withLock { queue in
                        let batch = queue
                        queue = []
                        return batch
                    }
                    index = 0
                    if taken.isEmpty, await wakeUps.next(isolation: actor) == nil { return nil }
                }
            }

            mutating func next() async -> Event? {
                await next(isolation: nil)
            }
        }
    }

    /// The iterator handed `event` to the consumer.
    fileprivate func handedOut(_ event: Event) {
        backlog.subtract(1, ordering: .relaxed)
        if case .locations = event, let flow = flow.withLock({ $0 }) {
            flow.done()
            finishIfDone()
        }
    }
}

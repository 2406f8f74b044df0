import NIOCore
import Synchronization

/// Every write to the connections of one event loop, in one queue: a fan-out (one fix to many
/// clients) costs one hop to the loop, not one task per client. Writes from other threads are
/// appended and the loop is woken once; the loop then writes everything queued, in the order it
/// was queued, including what is appended while it writes. Connections queue here only what their
/// socket did not take at once (`ConnectionOutput.send`), under their lock, so a connection's frames
/// keep the order they were sent in, whatever thread sent them (decision 0042).
final class LoopWriter: Sendable {
    private struct State {
        var queue: [(output: ConnectionOutput, frame: ByteBuffer)] = []
        /// A drain is scheduled or running: what is appended now is written by it.
        var armed = false
    }

    let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Queues one frame for one connection, from any thread.
    func enqueue(_ frame: ByteBuffer, to output: ConnectionOutput) {
        let starts = state.withLock { state -> Bool in
            state.queue.append((output, frame))
            if state.armed { return false }
            state.armed = true
            return true
        }
        // Always a task of its own, even on the loop: a connection queues under its lock, which
        // the drain takes too.
        if starts { eventLoop.execute { [self] in drain() } }
    }

    /// On the loop: writes until the queue is empty.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [(output: ConnectionOutput, frame: ByteBuffer)] in
                let batch = state.queue
                state.queue.removeAll(keepingCapacity: true)
                if batch.isEmpty { state.armed = false }
                return batch
            }
            if batch.isEmpty { return }
            for (output, frame) in batch { output.writeOnLoop(frame) }
        }
    }
}

/// The writer of each event loop (the daemon runs one loop; tests may run more).
final class LoopWriters: Sendable {
    private let writers = Mutex<[ObjectIdentifier: LoopWriter]>([:])

    func writer(for eventLoop: any EventLoop) -> LoopWriter {
        writers.withLock { writers in
            let key = ObjectIdentifier(eventLoop)
            if let writer = writers[key] { return writer }
            let writer = LoopWriter(eventLoop: eventLoop)
            writers[key] = writer
            return writer
        }
    }
}

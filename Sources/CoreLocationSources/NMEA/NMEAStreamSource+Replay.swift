import Foundation
import CoreLocationEngine

extension NMEAStreamSource {
    /// Events handed out per scheduler step when replaying as fast as possible (a step boundary is
    /// where `stop()` can get in).
    static let fastReplayBatch = 64

    func startReplay(generation: Int) {
        guard case .file(let path, _) = input else { return }
        let loaded = state.withLock { state -> Bool in state.replay != nil }
        if !loaded {
            do throws(FileProblem) {
                let replay = try NMEAReplay(path: path)
                state.withLock { $0.replay = replay }
            } catch {
                logger.error("NMEA file unusable", metadata: ["error": "\(error.message)"])
                deliver([.unavailable(reason: error.message), .finished], generation: generation, status: nil)
                return
            }
        }
        scheduleReplay(generation: generation, at: scheduler.now)
    }

    /// The message for a log that held no NMEA sentence at all.
    static func noSentenceMessage(_ path: String) -> String { "no NMEA sentence found in \(path)" }

    private func scheduleReplay(generation: Int, at deadline: Double) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.work = scheduler.schedule(at: deadline) { [weak self] in
                self?.replayStep(generation: generation, deadline: deadline)
            }
        }
    }

    /// One step of the replay. On a timeline that runs as fast as possible, the step goes on to the
    /// following events while nothing else is due before them (`ReplayScheduler.continueInline`), up
    /// to `fastReplayBatch` events, rather than scheduling a step for each.
    private func replayStep(generation: Int, deadline: Double) {
        state.exclusively { replayStepExclusively(generation: generation, deadline: deadline) }
    }

    private func replayStepExclusively(generation: Int, deadline: Double) {
        var deadline = deadline
        var handedOut = 0
        while let next = replayEvents(generation: generation, deadline: deadline, handedOut: &handedOut) {
            if handedOut < Self.fastReplayBatch, let timeline = scheduler as? ReplayScheduler,
                timeline.continueInline(to: next)
            {
                deadline = next
                continue
            }
            // Backpressure: the next step waits until the consumer has caught up.
            guard let flow = state.withLock({ $0.flow }) else { return scheduleReplay(generation: generation, at: next) }
            flow.whenReady { [weak self] in self?.scheduleReplay(generation: generation, at: next) }
            return
        }
    }

    /// Hands out the events due at `deadline`; the time of the next one, or nil when the replay is over
    /// or was stopped.
    private func replayEvents(generation: Int, deadline: Double, handedOut: inout Int) -> Double? {
        guard case .file(let path, let pace) = input else { return nil }
        let receivedAt = scheduler.wallClock(at: deadline)
        let taken = state.withLock { state -> (events: [SourceEvent], next: Double?)? in
            guard state.generation == generation else { return nil }
            state.work = nil
            // Mutated in place (optional chaining on the locked state): the replay holds the decoder's
            // buffers and epoch, which a copy per event would move twice. Its status is read from it
            // when asked (`status`), not copied out per event.
            guard let taken = state.replay?.take(pace: pace, deadline: deadline, receivedAt: receivedAt) else { return nil }
            var events = taken.events
            let next = taken.next
            if next == nil {
                if state.replay?.foundNoSentence == true { events.append(.unavailable(reason: Self.noSentenceMessage(path))) }
                events.append(.finished)
            }
            return (events, next)
        }
        guard let (events, next) = taken, deliver(events, generation: generation, status: nil) else { return nil }
        handedOut += events.count
        return next
    }
}

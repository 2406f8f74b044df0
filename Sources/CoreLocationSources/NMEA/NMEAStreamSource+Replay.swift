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

    private func replayStep(generation: Int, deadline: Double) {
        delivery.lock()
        defer { delivery.unlock() }
        guard case .file(_, let pace) = input else { return }
        let receivedAt = scheduler.wallClock(at: deadline)
        let (events, status, next) = state.withLock {
            state -> ([SourceEvent], NMEAReceiverStatus?, Double?) in
            guard state.generation == generation, var replay = state.replay else { return ([], nil, nil) }
            state.work = nil
            state.replay = nil  // moved out, so its buffers are not copied on write
            var events: [SourceEvent] = []
            var next: Double?
            switch pace {
            case .asFastAsPossible:
                while events.count < Self.fastReplayBatch, let event = replay.next(receivedAt: receivedAt) {
                    events.append(event)
                }
                next = replay.peek(receivedAt: receivedAt) == nil ? nil : deadline
            case .recorded(let speed):
                if let event = replay.next(receivedAt: receivedAt) { events.append(event) }
                if replay.peek(receivedAt: receivedAt) != nil {
                    next = deadline + replay.gapToNext(receivedAt: receivedAt) / (speed > 0 ? speed : 1)
                }
            }
            if next == nil {
                if replay.foundNoSentence, case .file(let path, _) = input {
                    events.append(.unavailable(reason: Self.noSentenceMessage(path)))
                }
                events.append(.finished)
            }
            state.replay = replay
            return (events, replay.status, next)
        }
        guard status != nil else { return }
        guard deliver(events, generation: generation, status: status) else { return }
        guard let next else { return }
        // Backpressure: the next step waits until the consumer has caught up.
        guard let flow = state.withLock({ $0.flow }) else { return scheduleReplay(generation: generation, at: next) }
        flow.whenReady { [weak self] in self?.scheduleReplay(generation: generation, at: next) }
    }
}

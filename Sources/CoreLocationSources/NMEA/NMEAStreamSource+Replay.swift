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
            guard let data = FileManager.default.contents(atPath: path) else {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                let error: NMEASourceError =
                    fd >= 0
                    ? NMEASourceError(code: .readFailed, message: "cannot read \(path)", target: path)
                    : NMEASourceError.opening(path, errno: errno, isDevice: false)
                if fd >= 0 { close(fd) }
                logger.error("NMEA file unusable", metadata: ["error": "\(error.message)"])
                deliver([.unavailable(reason: error.message), .finished], generation: generation, status: nil)
                return
            }
            state.withLock { $0.replay = NMEAReplay(bytes: [UInt8](data)) }
        }
        scheduleReplay(generation: generation, at: scheduler.now)
    }

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
            if next == nil { events.append(.finished) }
            state.replay = replay
            return (events, replay.status, next)
        }
        guard status != nil else { return }
        guard deliver(events, generation: generation, status: status) else { return }
        if let next { scheduleReplay(generation: generation, at: next) }
    }
}

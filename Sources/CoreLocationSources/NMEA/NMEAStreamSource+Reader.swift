import Foundation
import CoreLocationEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension NMEAStreamSource {
    enum ReadOutcome {
        case stopped
        case ended(String)
    }

    func startReader(_ endpoint: NMEAEndpoint, generation: Int) {
        // A socket pair rather than a pipe: `stop()` writes with MSG_NOSIGNAL, so a reader thread that
        // already ended (and closed its end) cannot raise SIGPIPE in the caller.
        var pipeEnds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0 else {
            deliver(
                [.unavailable(reason: "cannot create a socket pair: \(String(cString: strerror(errno)))")],
                generation: generation, status: nil)
            return
        }
        let wakeRead = pipeEnds[0]
        state.withLock { $0.wakeDescriptor = pipeEnds[1] }
        NamedThread.start("cl-nmea") { [self] in
            runReader(endpoint, generation: generation, wake: wakeRead)
            close(wakeRead)
        }
    }


    private func runReader(_ endpoint: NMEAEndpoint, generation: Int, wake: Int32) {
        var decoder = NMEAStreamDecoder(referenceDate: referenceDate)
        var fixedBaud: Int?
        var detector: NMEABaudDetector?
        if case .serial(_, let baud) = endpoint {
            fixedBaud = baud
            if baud == nil { detector = NMEABaudDetector(now: scheduler.now) }
        }
        var lastProblem: String?
        while state.isCurrent(generation) {
            let channel: NMEAChannel
            do throws(NMEASourceError) {
                channel = try NMEAChannel.open(endpoint, baud: fixedBaud ?? detector?.currentRate)
            } catch {
                if error.message != lastProblem {
                    logger.warning("NMEA input unavailable", metadata: ["error": "\(error.message)"])
                    lastProblem = error.message
                }
                guard deliver([.unavailable(reason: error.message)], generation: generation, status: nil) else {
                    return
                }
                if waitForWake(wake, seconds: reopenInterval) { return }
                continue
            }
            lastProblem = nil
            logger.info("NMEA input opened", metadata: ["input": "\(endpoint)"])
            let outcome = readLoop(
                channel, endpoint: endpoint, decoder: &decoder, detector: &detector,
                wake: wake, generation: generation)
            state.ifCurrent(generation) { $0.isOpen = false }
            channel.close()
            decoder.resetLine()
            switch outcome {
            case .stopped:
                return
            case .ended(let reason):
                logger.warning("NMEA input ended", metadata: ["input": "\(endpoint)", "reason": "\(reason)"])
                if case .descriptor = endpoint {
                    var events: [SourceEvent] = []
                    decoder.finish(receivedAt: scheduler.wallNow) { event, _ in events.append(Self.sourceEvent(event)) }
                    deliver(
                        events + [.unavailable(reason: reason), .finished], generation: generation,
                        status: decoder.status)
                    return
                }
                guard deliver([.unavailable(reason: reason)], generation: generation, status: decoder.status) else {
                    return
                }
                if waitForWake(wake, seconds: reopenInterval) { return }
            }
        }
    }

    private func readLoop(
        _ channel: NMEAChannel, endpoint: NMEAEndpoint, decoder: inout NMEAStreamDecoder,
        detector: inout NMEABaudDetector?, wake: Int32, generation: Int
    ) -> ReadOutcome {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var lastEpochAt = scheduler.now
        // Marked open only now, with the silence clock started, so a caller that waits for `isOpen`
        // and then advances time sees the silence counted from before its advance.
        state.ifCurrent(generation) { $0.isOpen = true }
        // Made once, not at each read: the read of an epoch is the start of its way to the first client.
        var descriptors = [
            pollfd(fd: channel.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        var events: [SourceEvent] = []
        // The read's valid sentences, each ending in CR LF, while somebody asked for them (decision 0090).
        var relayed: [UInt8] = []
        while true {
            // `poll` writes every entry's `revents`: nothing to clear between rounds.
            let ready = poll(&descriptors, 2, 250)
            if ready < 0 {
                if errno == EINTR { continue }
                return .ended("\(endpoint): poll failed: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0 { return .stopped }
            var bytesRead = 0
            var validSentences = 0
            if descriptors[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(channel.fd, $0.baseAddress, $0.count) }
                if count == 0 { return .ended("\(endpoint) closed (end of stream)") }
                // A spurious wake-up (EAGAIN, EINTR) reads nothing but still counts the silence below.
                if count < 0 {
                    let code = errno
                    guard code == EAGAIN || code == EINTR || code == EWOULDBLOCK else {
                        return .ended("\(endpoint) vanished: \(String(cString: strerror(code)))")
                    }
                } else {
                    bytesRead = count
                    let before = decoder.statistics.decoded + decoder.statistics.ignored
                    events.removeAll(keepingCapacity: true)
                    let receivedAt = scheduler.wallNow
                    let relay: ((UnsafeRawBufferPointer) -> Void)? =
                        sentenceListeners.isEmpty
                        ? nil
                        : { line in
                            relayed.append(contentsOf: line)
                            relayed.append(contentsOf: [0x0D, 0x0A])
                        }
                    buffer.withUnsafeBytes { all in
                        decoder.feed(
                            UnsafeRawBufferPointer(rebasing: all[0..<count]), receivedAt: receivedAt, relay: relay
                        ) { event, _ in events.append(Self.sourceEvent(event)) }
                    }
                    // Sent before the epoch they close, as gpsd relays a sentence before the report it completes.
                    if !relayed.isEmpty {
                        sentenceListeners.send(String(decoding: relayed, as: UTF8.self))
                        relayed.removeAll(keepingCapacity: true)
                    }
                    validSentences = decoder.statistics.decoded + decoder.statistics.ignored - before
                    if !events.isEmpty { lastEpochAt = scheduler.now }
                    guard
                        deliver(
                            events, generation: generation, status: decoder.status,
                            atRecentFixes: decoder.assembler.statusAtRecentFixes)
                    else { return .stopped }
                    // Backpressure: read no more until the consumer has caught up (stdin at full speed).
                    if !events.isEmpty, let flow = state.withLock({ $0.flow }) {
                        while !flow.waitUntilReady(timeout: 0.25) {
                            if !state.isCurrent(generation) { return .stopped }
                        }
                        lastEpochAt = scheduler.now
                    }
                }
            }
            let now = scheduler.now
            if var running = detector, running.locked == nil {
                switch running.observe(bytes: bytesRead, validSentences: validSentences, now: now) {
                case .keep, .locked: break
                case .tryRate(let rate):
                    logger.debug("NMEA baud detection: trying \(rate)", metadata: ["input": "\(endpoint)"])
                    if case .serial(let path, _) = endpoint {
                        do throws(NMEASourceError) {
                            try NMEASerialPort.configure(channel.fd, baud: rate, path: path)
                        } catch {
                            return .ended(error.message)
                        }
                    }
                    decoder.resetLine()
                }
                if let locked = running.locked {
                    logger.info("NMEA baud rate detected", metadata: ["input": "\(endpoint)", "baud": "\(locked)"])
                    state.withLock { $0.lockedBaud = locked }
                }
                detector = running
            }
            if now - lastEpochAt >= silenceTimeout {
                lastEpochAt = now
                var reason = "no NMEA data from \(endpoint) for \(Int(silenceTimeout)) s"
                if let detector, detector.locked == nil, detector.cycledThroughAll {
                    reason =
                        "no valid NMEA from \(endpoint) at any of "
                        + NMEABaudDetector.candidateRates.map(String.init).joined(separator: ", ") + " baud"
                }
                guard deliver([.unavailable(reason: reason)], generation: generation, status: decoder.status) else {
                    return .stopped
                }
            }
        }
    }

    /// Waits up to `seconds` (real time) for the wake-up pipe; true when woken (stop or restart).
    private func waitForWake(_ wake: Int32, seconds: Double) -> Bool {
        var descriptor = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, Int32(max(1, seconds * 1000)))
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }
}

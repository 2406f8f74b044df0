import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Issue 37, item 7: a frame begun after the hello must be completed in time, and the bytes of incomplete frames
/// the daemon holds for all its connections are bounded and given back when a connection goes (decision 0086).
@Suite(.serialized) struct PartialFrameTests {
    func refusal(_ messages: [DaemonMessage]) -> DaemonError? {
        var found: DaemonError?
        for case let .error(error) in messages { found = error }
        return found
    }

    /// The first `sent` bytes of a frame announcing `length` payload bytes.
    func beginning(of length: Int, sent: Int) -> [UInt8] {
        let frame = FrameDecoder.frame(length: length) { $0 += repeatElement(UInt8(ascii: " "), count: length) }
        return Array(frame.prefix(4 + sent))
    }

    @Test func aHalfSentFrameIsClosedAfterTheFrameTimeout() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945", "--frame-timeout", "0.3"])
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
        #expect(UnixSocket.writeAll(fd, beginning(of: 100, sent: 10)))
        let (messages, closed) = DaemonHarness.readMessages(fd)
        #expect(closed)
        let error = try #require(refusal(messages))
        #expect(error.code == .tooSlow)
        #expect(error.message.contains("not completed"))
    }

    @Test func theDaemonsBudgetRefusesTheNextBigPartialFrameAndIsGivenBack() async throws {
        let harness = try DaemonHarness()
        try await harness.start(
            ["--simulate", "48.8584,2.2945", "--frame-timeout", "60", "--max-partial-frames", "70000"])
        let first = try harness.rawSocket()
        #expect(UnixSocket.writeAll(first, try DaemonHarness.hello()))
        #expect(DaemonHarness.readMessages(first, limit: 1).messages.count == 1)
        #expect(UnixSocket.writeAll(first, beginning(of: 60_000, sent: 40_000)))

        let second = try harness.rawSocket()
        defer { close(second) }
        #expect(UnixSocket.writeAll(second, try DaemonHarness.hello()))
        #expect(UnixSocket.writeAll(second, beginning(of: 60_000, sent: 40_000)))
        let (messages, closed) = DaemonHarness.readMessages(second)
        #expect(closed)
        let error = try #require(refusal(messages))
        #expect(error.code == .tooSlow)
        #expect(error.message.contains("incomplete frames"))

        // The first connection goes: its share is given back, and a third can send the same frame in two parts.
        close(first)
        let ping = Array(#"{"type":"request","id":1,"body":{"type":"ping"}}"#.utf8)
        let padded = ping + [UInt8](repeating: UInt8(ascii: " "), count: 60_000 - ping.count)
        let frame = FrameDecoder.frame(padded)
        let answered = await Polling.until(timeout: 10, every: 0.1) {
            guard let third = try? harness.rawSocket() else { return false }
            defer { close(third) }
            guard UnixSocket.writeAll(third, (try? DaemonHarness.hello()) ?? []),
                UnixSocket.writeAll(third, Array(frame.prefix(40_004)))
            else { return false }
            try? await Task.sleep(for: .milliseconds(50))
            guard UnixSocket.writeAll(third, Array(frame.dropFirst(40_004))) else { return false }
            let (messages, _) = DaemonHarness.readMessages(third, limit: 2)
            return messages.contains(.reply(id: 1, body: .ok))
        }
        #expect(answered)
    }
}

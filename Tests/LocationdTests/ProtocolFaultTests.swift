import CoreLocationDaemonProtocol
import Foundation
import Synchronization
import Testing

/// Bad input against a real locationd process: each gets a clear answer, never a hang, and the
/// daemon keeps serving everyone else.
@Suite(.serialized) struct ProtocolFaultTests {
    /// The daemon still answers a well-behaved client.
    func stillServes(_ harness: DaemonHarness) throws {
        let connection = try DaemonConnection.connect(path: harness.socket, label: "check", timeout: 5)
        connection.startReading { _ in }
        #expect(try connection.request(.ping) == .ok)
        connection.close()
    }

    func firstError(_ messages: [DaemonMessage]) -> DaemonError? {
        for case let .error(error) in messages { return error }
        return nil
    }

    @Test func helloAndStatus() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let connection = try DaemonConnection.connect(path: harness.socket, label: "t", timeout: 5)
        connection.startReading { _ in }
        #expect(connection.hello.version == DaemonProtocol.version)
        #expect(connection.hello.pid == ProcessInfo.processInfo.processIdentifier)
        #expect(connection.hello.uid == getuid())
        guard case let .status(status) = try connection.request(.status) else { Issue.record("no status"); return }
        #expect(status.sources.map(\.id) == ["simulated"])
        #expect(status.apps.count == 1)
    }

    @Test func unknownVersionIsRefusedNamingBoth() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello(version: 99)))
        let (messages, closed) = DaemonHarness.readMessages(fd)
        let error = try #require(firstError(messages))
        #expect(error.code == .incompatibleVersion)
        #expect(error.message.contains("version \(DaemonProtocol.version)") && error.message.contains("version 99"))
        #expect(closed)
        try stillServes(harness)
    }

    /// A client of version 1 (Swift's synthesized coding, decision 0068) says hello as it did: the daemon answers
    /// `incompatible-version` naming both versions in the shape that client reads, and closes.
    @Test func aVersion1HelloIsRefusedInVersion1sShape() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, FrameDecoder.frame(Array(#"{"hello":{"_0":{"version":1,"label":"old"}}}"#.utf8))))
        let (frames, closed) = DaemonHarness.readFrames(fd)
        #expect(closed)
        let frame = try #require(frames.first)
        #expect(frames.count == 1)
        let error = try JSONDecoder().decode(Version1Error.self, from: Data(frame)).error.payload
        #expect(error.code == "incompatible-version")
        #expect(error.message == "locationd speaks protocol version 2; this client speaks version 1")
        #expect(error.fatal)
        try stillServes(harness)
    }

    /// Version 1's error message, as a version-1 client decodes it: `{"error":{"_0":{…}}}`.
    struct Version1Error: Decodable {
        struct Case: Decodable {
            enum CodingKeys: String, CodingKey { case payload = "_0" }
            var payload: Payload
        }

        struct Payload: Decodable {
            var code: String
            var message: String
            var fatal: Bool
        }

        var error: Case
    }

    @Test func malformedFirstFrameIsAnErrorAndClose() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, FrameDecoder.frame(Array("{not json".utf8))))
        let (messages, closed) = DaemonHarness.readMessages(fd)
        #expect(firstError(messages)?.code == .malformed)
        #expect(closed)
        try stillServes(harness)
    }

    @Test func oversizedFrameIsAnErrorAndClose() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
        // Announce 1 MiB; the daemon must not wait for it.
        #expect(UnixSocket.writeAll(fd, [0x00, 0x10, 0x00, 0x00, 0x7B]))
        let (messages, closed) = DaemonHarness.readMessages(fd)
        #expect(messages.contains { if case .hello = $0 { true } else { false } })
        let error = try #require(firstError(messages))
        #expect(error.code == .oversized)
        #expect(error.message.contains("1048576"))
        #expect(closed)
        try stillServes(harness)
    }

    @Test func truncatedFrameThenHangUpLeavesTheDaemonServing() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let fd = try harness.rawSocket()
        let hello = try DaemonHarness.hello()
        #expect(UnixSocket.writeAll(fd, Array(hello.prefix(hello.count - 3))))
        close(fd)
        try stillServes(harness)
    }

    @Test func silentClientIsClosedAfterTheHelloTimeout() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945", "--hello-timeout", "0.3"])
        let fd = try harness.rawSocket()
        defer { close(fd) }
        let (messages, closed) = DaemonHarness.readMessages(fd)
        #expect(firstError(messages)?.code == .helloTimeout)
        #expect(closed)
        try stillServes(harness)
    }

    @Test func clientThatStopsReadingIsCutOffOthersServed() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945", "--max-buffered", "65536", "--write-timeout", "0.5"])
        let fd = try harness.rawSocket()
        defer { close(fd) }
        #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
        // Ask for status replies and never read them; the daemon must hang up at some point.
        var writesFailed = false
        for id in 0..<20_000 {
            let request = try DaemonProtocol.frame(ClientMessage.request(id: UInt64(id), body: .status))
            if !UnixSocket.writeAll(fd, request) {
                writesFailed = true
                break
            }
            if id % 2000 == 0 { try stillServes(harness) }
        }
        if !writesFailed {
            // Our writes were absorbed; reading now must reach the end of a closed stream.
            let (_, closed) = DaemonHarness.readMessages(fd, limit: 1_000_000)
            #expect(closed)
        }
        #expect(await harness.logContains("Cutting off a client that does not read"))
        try stillServes(harness)
    }

    @Test func floodingClientIsAnsweredAndOthersToo() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let flooder = try DaemonConnection.connect(path: harness.socket, label: "flood", timeout: 5)
        let answered = Mutex(0)
        flooder.startReading { _ in }
        for _ in 0..<5_000 {
            flooder.send(.ping) { reply in if reply == .ok { answered.withLock { $0 += 1 } } }
        }
        try stillServes(harness)
        #expect(try flooder.request(.ping, timeout: 10) == .ok)
        #expect(answered.withLock { $0 } == 5_000)
    }
}

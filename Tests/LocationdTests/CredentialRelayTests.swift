import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Logging
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// A Settings connection is read by the daemon itself, with the writer of every byte checked (decision 0100; issue
/// 37, item 11, fork-then-exec): what the process that connected writes goes on to NIO, both ways; bytes its child
/// writes on the same socket end the connection. The client is Python, which forks.
@Suite(.enabled(if: RawClient.isAvailable, "needs python3 (Debian package python3)"))
struct CredentialRelayTests {
    static let script = #"""
        import os, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(20)
        s.connect(sys.argv[1])
        s.sendall(b"early;")
        # The daemon's side is set up once this arrives: from then on every byte carries its writer.
        data = b""
        while len(data) < 3:
            data += s.recv(3 - len(data))
        assert data == b"go;", data
        s.sendall(b"parent;")
        child = os.fork()
        if child == 0:
            s.sendall(b"child;")
            os._exit(0)
        os.waitpid(child, 0)
        try:
            s.sendall(b"after;")
            rest = s.recv(100)
            print("closed" if rest == b"" else "open: %r" % rest, flush=True)
        except socket.timeout:
            print("open: no answer", flush=True)
        except OSError as error:
            print("closed: %r" % error, flush=True)
        """#

    /// Reads `fd` (non-blocking) until its peer closes or `seconds` pass; returns the bytes and whether it closed.
    static func readToEnd(_ fd: Int32, seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var pollfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&pollfds, 1, 100)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 {
                return (bytes, true)
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                return (bytes, true)
            }
        }
        return (bytes, false)
    }

    /// glibc's `pidfd_open` (2.36), which its Swift module does not declare: looked up by name.
    static let pidfdOpen: (@convention(c) (Int32, UInt32) -> Int32)? = {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(address, to: (@convention(c) (Int32, UInt32) -> Int32).self)
    }()

    @Test func bytesOfAnotherWriterEndTheConnection() async throws {
        let directory = try ScratchDirectory("relay")
        let path = directory.path("s")
        let listening = try ListeningSocket.bind(path: path)
        defer { close(listening) }
        let relay = try CredentialRelay(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { relay.stop() }

        let python = Process()
        python.executableURL = URL(fileURLWithPath: RawClient.python)
        python.arguments = ["-c", Self.script, path]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        defer { if python.isRunning { python.terminate() } }
        let pythonPID = python.processIdentifier

        let (accepted, printed) = try await Polling.onOwnThread { () -> (Int32, String) in
            var pollfds = [pollfd(fd: listening, events: Int16(POLLIN), revents: 0)]
            guard poll(&pollfds, 1, 10_000) == 1 else { return (-1, "") }
            let client = accept(listening, nil, nil)
            guard client >= 0, let peer = PeerIdentity.accepted(client) else { return (-1, "") }
            guard peer.credentials.pid == pythonPID, peer.pidfd >= 0,
                case let .relayed(end) = relay.relay(client, connector: peer.pidfd, pid: peer.credentials.pid)
            else { return (-1, "") }
            defer { close(end) }
            // NIO's side of the pair, read here: the relay passes what the daemon writes to the client, too.
            _ = UnixSocket.writeAll(end, Array("go;".utf8))
            let (bytes, closed) = Self.readToEnd(end, seconds: 10)
            let text = String(decoding: bytes, as: UTF8.self) + (closed ? "|closed" : "|open")
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (end, text + "|" + printed)
        }
        #expect(accepted >= 0, "no relayed connection")
        // The connector's bytes, before accept and after, went through; the child's ended the connection, so neither
        // they nor what the parent wrote after them reached the daemon, and the client saw the connection close.
        let parts = printed.split(separator: "|", omittingEmptySubsequences: false)
        #expect(parts.first == "early;parent;", "\(printed)")
        #expect(parts.dropFirst().first == "closed", "\(printed)")
        #expect(parts.dropFirst(2).first?.hasPrefix("closed") == true, "\(printed)")
        python.waitUntilExit()
        withExtendedLifetime(directory) {}
    }

    /// Two pidfds of one process are the same process, of another not; pidfds of the test process and of a child.
    @Test func pidfdsCompareByProcess() throws {
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        defer { ends.forEach { close($0) } }
        func peerPidfd(_ fd: Int32) -> Int32 {
            var pidfd: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, PeerIdentity.peerPidfdOption, &pidfd, &length) == 0 ? pidfd : -1
        }
        // A socket pair's peer is this process, on either end: two distinct pidfds of it.
        let first = peerPidfd(ends[0])
        let second = peerPidfd(ends[1])
        try #require(first >= 0 && second >= 0)
        defer { close(first); close(second) }
        #expect(first != second)
        #expect(CredentialRelay.sameProcess(first, second, pid: getpid()))

        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["5"]
        try sleeper.run()
        defer { sleeper.terminate() }
        let other = Self.pidfdOpen.map { $0(sleeper.processIdentifier, 0) } ?? -1
        try #require(other >= 0, "pidfd_open (glibc 2.36)")
        defer { close(other) }
        #expect(!CredentialRelay.sameProcess(other, first, pid: getpid()))
        #expect(!CredentialRelay.sameProcess(first, other, pid: sleeper.processIdentifier))
    }
}

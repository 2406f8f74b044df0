import Foundation
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// `ListeningSocket.answers`: a daemon's socket that stops answering within the window (a SIGKILLed
/// daemon whose last thread is still ending) is stale; one that answers throughout is a live daemon.
@Suite struct StaleSocketTests {
    /// A listening Unix socket at a fresh path, as a daemon holds one; nil when the machine refuses.
    static func listen() -> (fd: Int32, path: String)? {
        let path = NSTemporaryDirectory() + "stale-\(UUID().uuidString.prefix(8)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            return nil
        }
        return (fd, path)
    }

    @Test func aSocketThatStopsAnsweringWithinTheWindowIsStale() throws {
        let listener = try #require(Self.listen())
        defer { unlink(listener.path) }
        // The predecessor's last thread ends 0.4 s into the new daemon's check.
        let closer = Thread { Thread.sleep(forTimeInterval: 0.4); close(listener.fd) }
        closer.start()
        #expect(!ListeningSocket.answers(listener.path, patience: 5, every: 0.05))
    }

    @Test func aSocketThatAnswersThroughoutIsALiveDaemon() throws {
        let listener = try #require(Self.listen())
        defer {
            close(listener.fd)
            unlink(listener.path)
        }
        #expect(ListeningSocket.answers(listener.path, patience: 0.3, every: 0.05))
    }

    @Test func aPathNobodyListensOnIsStale() {
        #expect(!ListeningSocket.answers(NSTemporaryDirectory() + "nobody-\(UUID().uuidString).sock", patience: 1))
    }
}

import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import NIOPosix
import Synchronization
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// The daemon accepts its connections itself (`Acceptor`), on its own socket and on the gpsd front door's, so it knows
/// each one's descriptor and duplicates it for direct writes without searching its descriptors for it (issue 37,
/// item 6: the search read the cookie of every open descriptor, on the event loop, at every hello).
@Suite(.serialized) struct AcceptorTests {
    /// Socket pairs held open while the test runs, as a daemon holds its other connections.
    static func held(_ pairs: Int) -> [Int32] {
        var held: [Int32] = []
        for _ in 0..<pairs {
            var ends: [Int32] = [-1, -1]
            if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 {
                held += ends
            }
        }
        return held
    }

    /// With 1 000 other sockets open, a connection accepted by the acceptor is duplicated reading two cookies
    /// (its own, its copy's), where the search of `/proc/self/fd` (0098) read more than a thousand; the copy is that
    /// connection's socket both ways.
    @Test func anAcceptedConnectionIsDuplicatedWithoutASearch() async throws {
        let others = Self.held(500)
        defer { others.forEach { close($0) } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("acceptor-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s").path
        let accepted = Mutex<[Int32]>([])
        let acceptor = try Acceptor(listening: try ListeningSocket.bind(path: path), logger: Logger(label: "test"))
        acceptor.start { descriptor in accepted.withLock { $0.append(descriptor) } }
        defer { acceptor.stop() }

        let client = try UnixSocket.connect(path: path)
        defer { close(client) }
        let arrived = await Polling.until(timeout: 10, every: 0.01) { accepted.withLock { !$0.isEmpty } }
        #expect(arrived)
        guard let descriptor = accepted.withLock({ $0.first }), let cookie = DirectSocket.cookie(of: descriptor) else {
            Issue.record("nothing accepted")
            return
        }
        defer { close(descriptor) }

        let before = DirectSocket.cookiesRead.load(ordering: .relaxed)
        let copy = DirectSocket.duplicate(DirectSocket.Accepted(descriptor: descriptor, cookie: cookie))
        let read = DirectSocket.cookiesRead.load(ordering: .relaxed) - before
        #expect(read == 2, "\(read) cookies read")
        guard let copy else {
            Issue.record("no duplicate")
            return
        }
        defer { close(copy) }
        #expect(copy != descriptor && DirectSocket.cookie(of: copy) == cookie)
        // The copy is the connection: what it sends, the client reads; what the client sends, it reads.
        #expect(UnixSocket.writeAll(copy, Array("to the client".utf8)))
        UnixSocket.setReceiveTimeout(client, seconds: 10)
        #expect(UnixSocket.readSome(client) == Array("to the client".utf8))
        #expect(UnixSocket.writeAll(client, Array("to the daemon".utf8)))
        let count = try await Polling.onOwnThread { () -> Int in
            var pollfds = [pollfd(fd: copy, events: Int16(POLLIN), revents: 0)]
            _ = poll(&pollfds, 1, 10_000)
            var buffer = [UInt8](repeating: 0, count: 64)
            return recv(copy, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        }
        #expect(count == 13)
    }

    /// The gpsd front door's connections are accepted by an acceptor too (decision 0099): with 1 000 other sockets
    /// open, a client's socket is duplicated for the direct writes reading 2 cookies. On main the front door
    /// accepted with NIO's `ServerBootstrap` and found the socket by a scan of `/proc/self/fd`, one cookie per open
    /// descriptor (over 1 000 here), at every connection.
    @Test func aGPSDClientIsDuplicatedWithoutASearch() async throws {
        let others = Self.held(500)
        defer { others.forEach { close($0) } }
        let directory = try ScratchDirectory("front-door")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let scheduler = ManualScheduler()
        let core = DaemonCore(
            store: try AuthorizationStore(path: directory.path("d.sqlite")), databasePath: directory.path("d.sqlite"),
            sources: SharedSources([], clock: { scheduler.now }), scheduler: scheduler,
            configuration: LocationEngine.Configuration(), environmentPolicy: nil, limits: DaemonLimits(),
            daemonUID: getuid(), launcher: .exec, logger: logger)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let path = directory.path("gpsd.sock")
        let listeners = GPSDFrontDoor.listen(
            [.unix(path: path)], group: group, core: core, isRoot: false, logger: logger)
        #expect(listeners.count == 1)

        let before = DirectSocket.cookiesRead.load(ordering: .relaxed)
        let client = try UnixSocket.connect(path: path)
        defer { close(client) }
        UnixSocket.setReceiveTimeout(client, seconds: 10)
        // VERSION comes at once; DEVICES once the client is identified and its engine client open, which on main
        // came after the scan, and here after the duplicate made when the channel became active.
        #expect(UnixSocket.writeAll(client, Array("?DEVICES;\n".utf8)))
        var received = ""
        while !received.contains(#""class":"DEVICES""#) {
            let bytes = UnixSocket.readSome(client)
            if bytes.isEmpty { break }
            received += String(decoding: bytes, as: UTF8.self)
        }
        #expect(received.contains(#""class":"VERSION""#) && received.contains(#""class":"DEVICES""#), "\(received)")
        let read = DirectSocket.cookiesRead.load(ordering: .relaxed) - before
        #expect(read == 2, "\(read) cookies read")
        listeners.forEach { $0.acceptor.stop() }
        try await group.shutdownGracefully()
        withExtendedLifetime(directory) {}
    }

    /// A number that no longer is the accepted socket (NIO closed it and another socket took it) gives no
    /// duplicate: a direct write must never reach another connection.
    @Test func aReusedNumberIsNotDuplicated() throws {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var first: [Int32] = [-1, -1]
        var second: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, type, 0, &first) == 0 && socketpair(AF_UNIX, type, 0, &second) == 0)
        defer { (first + second).forEach { close($0) } }
        guard let cookie = DirectSocket.cookie(of: first[0]) else {
            Issue.record("no cookie")
            return
        }
        // The accepted socket is the number's until the number is another socket's: `dup2` closes it and puts
        // another socket in its place in one step (no other thread of the test process can take the number).
        #expect(DirectSocket.duplicate(DirectSocket.Accepted(descriptor: first[0], cookie: cookie)).map(close) == 0)
        #expect(dup2(second[0], first[0]) == first[0])
        #expect(DirectSocket.duplicate(DirectSocket.Accepted(descriptor: first[0], cookie: cookie)) == nil)
    }
}

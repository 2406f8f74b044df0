import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// Another user's app, when the daemon may not read its `/proc/PID/exe` (no ptrace rights; issue 37 item 3): the
/// app is named from the executable its hello declares, within its kernel uid, and that never makes it the
/// Settings app. Where the kernel gives a pidfd of the peer, an executable read by a pid whose process has gone
/// does not count (item 11).
@Suite struct DeclaredExecutableTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A daemon core in this process, and a connection to it over a socket pair.
    static func attach(
        _ identity: PeerIdentity, group: MultiThreadedEventLoopGroup, directory: String
    ) async throws -> (core: DaemonCore, hello: ServerHello) {
        let scheduler = ManualScheduler()
        let store = try AuthorizationStore(path: directory + "/d.sqlite")
        let core = DaemonCore(
            store: store, databasePath: directory + "/d.sqlite", sources: SharedSources([], clock: { scheduler.now }),
            scheduler: scheduler, configuration: LocationEngine.Configuration(), environmentPolicy: nil,
            limits: DaemonLimits(), daemonUID: getuid(), launcher: .exec, logger: logger)
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let loop = group.next()
        let channel = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(inputOutput: ends[0]).get()
        let peer = Peer(
            id: core.nextPeerID(), channel: channel, writer: LoopWriter(eventLoop: loop), identity: identity,
            label: "test", limits: DaemonLimits(), logger: logger)
        let hello = await withCheckedContinuation { continuation in
            core.attach(peer) { continuation.resume(returning: $0) }
        }
        let settings = (identity.kernelExecutable ?? identity.declaredExecutable)
            .map { DaemonCore.settingsExecutables.contains($0) } ?? false
        // Not before the hello's token came back (decision 0011, connect-then-exec); a wrong one changes nothing.
        #expect(!core.isSettingsClient(peer))
        core.handle(.confirmIdentity(token: "not-the-token"), from: peer) { _ in }
        #expect(!core.isSettingsClient(peer))
        core.handle(.confirmIdentity(token: hello.token ?? ""), from: peer) { _ in }
        #expect(core.isSettingsClient(peer) == settings)
        close(ends[1])
        return (core, hello)
    }

    @Test func anUnreadableExecutableIsNamedFromTheHello() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("declared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plist: [String: Any] = ["CFBundleIdentifier": "org.example.declared"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: directory + "/app-Info.plist"))
        // The reader fails, as /proc/PID/exe does for another user's process without CAP_SYS_PTRACE.
        let made = PeerIdentity(credentials: .init(pid: getpid(), uid: getuid(), gid: getgid()), executableOf: { _ in nil })
        var identity = try #require(made)
        #expect(identity.kernelExecutable == nil)
        identity.declaredExecutable = directory + "/app"
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (_, hello) = try await Self.attach(identity, group: group, directory: directory)
        #expect(hello.app == "org.example.declared")
        #expect(hello.uid == getuid())

        // Where the kernel does not show the executable, declaring the locationctl beside the daemon is what a
        // Settings client of another user can do (decision 0085), and a relative or absent declaration names
        // nothing the client chose.
        identity.declaredExecutable = DaemonCore.siblingLocationctl
        #expect(identity.declaredExecutable != nil)
        #expect(identity.executable == DaemonCore.siblingLocationctl)
        let (core, _) = try await Self.attach(identity, group: group, directory: directory)
        let peer = try #require(core.state.withLock { state in state.apps.values.first?.peers.withLock { $0.values.first } })
        #expect(core.isSettingsClient(peer) == (DaemonCore.siblingLocationctl != nil))
        #expect(core.settingsRefusal(.registerAgent, from: peer) == nil)
        identity.declaredExecutable = "relative/app"
        #expect(identity.executable == "unidentified")
        identity.declaredExecutable = nil
        #expect(identity.executable == "unidentified")
        try await group.shutdownGracefully()
    }

    /// The kernel's reader, when it works, wins over any declaration.
    @Test func theKernelsExecutableWinsOverTheDeclaredOne() throws {
        var identity = try #require(PeerIdentity(credentials: .init(pid: getpid(), uid: getuid(), gid: getgid())))
        identity.declaredExecutable = "/usr/bin/true"
        #expect(identity.executable == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
    }

    /// `SO_PEERPIDFD` (Linux ≥ 6.5) on a connection from a process that then exits: while it runs, the pidfd names
    /// its pid; once it is gone (reaped), none, so an executable read by that pid is not taken as the peer's.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func aPidfdTellsWhetherThePeerIsStillTheProcess() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pidfd-\(UUID().uuidString).sock").path
        defer { unlink(path) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        try #require(listen(listener, 1) == 0)
        // A child that connects, waits for a line on its standard input, then exits.
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        child.arguments = ["-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); sys.stdin.readline()", path]
        let input = Pipe()
        child.standardInput = input
        try child.run()
        let connection = accept(listener, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        var pidfd: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        let got = getsockopt(connection, SOL_SOCKET, PeerIdentity.peerPidfdOption, &pidfd, &length)
        try #require(got == 0, "SO_PEERPIDFD needs Linux 6.5 or later: \(String(cString: strerror(errno)))")
        defer { close(pidfd) }
        #expect(PeerIdentity.pid(ofPidfd: pidfd) == child.processIdentifier)
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        child.waitUntilExit()
        #expect(PeerIdentity.pid(ofPidfd: pidfd) == nil)
    }
}

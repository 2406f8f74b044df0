import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
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

/// A connection's writes (decision 0042), straight into its socket or through the loop writer: frames
/// sent from many threads arrive whole and, per connection, in the order each thread sent them; a
/// connection that does not read is cut off at its limit, its neighbour served to the end. Real
/// channels over socket pairs on a real event loop.
@Suite struct LoopWriterTests {
    final class Counter: Sendable {
        let value = Mutex(0)
    }

    struct Connection {
        let peer: Peer
        let otherEnd: Int32
    }

    /// `direct`: each peer also holds a duplicate of its socket, as the daemon's do (`DirectSocket`),
    /// and writes straight into it while nothing waits; otherwise every frame goes through the loop.
    static func connect(
        _ count: Int, group: MultiThreadedEventLoopGroup, direct: Bool, limits: DaemonLimits = DaemonLimits()
    ) async throws -> [Connection] {
        let loop = group.next()
        let writer = LoopWriter(eventLoop: loop)
        var connections: [Connection] = []
        for index in 0..<count {
            var ends: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            let channel = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(inputOutput: ends[0]).get()
            let peer = Peer(
                id: UInt64(index), channel: channel, writer: writer, socket: direct ? dup(ends[0]) : -1,
                identity: PeerIdentity(uid: 0, pid: 1, executable: "/test"), label: "test", limits: limits,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            connections.append(Connection(peer: peer, otherEnd: ends[1]))
        }
        return connections
    }

    /// Four threads each send 200 numbered frames to each of eight connections: every connection gets
    /// all 800, each thread's in its order.
    @Test(arguments: [false, true]) func framesFromManyThreadsArriveWholeAndInOrder(direct: Bool) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = try await Self.connect(8, group: group, direct: direct)
        let threads = 4
        let perThread = 200
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for thread in 0..<threads {
                tasks.addTask {
                    try await Polling.onOwnThread {
                        for number in 0..<perThread {
                            let frame = ByteBuffer(bytes: FrameDecoder.frame(Array("\(thread) \(number)".utf8)))
                            for connection in connections { connection.peer.send(frame: frame) }
                        }
                    }
                }
            }
            try await tasks.waitForAll()
        }
        for connection in connections {
            let received = try await Polling.onOwnThread { () -> [String] in
                UnixSocket.setReceiveTimeout(connection.otherEnd, seconds: 10)
                var decoder = FrameDecoder()
                var frames: [String] = []
                while frames.count < threads * perThread {
                    let bytes = UnixSocket.readSome(connection.otherEnd)
                    if bytes.isEmpty { break }
                    decoder.append(bytes)
                    while let frame = try decoder.next() { frames.append(String(decoding: frame, as: UTF8.self)) }
                }
                return frames
            }
            #expect(received.count == threads * perThread)
            for thread in 0..<threads {
                let numbers = received.filter { $0.hasPrefix("\(thread) ") }.compactMap { Int($0.split(separator: " ")[1]) }
                #expect(numbers == Array(0..<perThread))
            }
            connection.peer.closed()
            close(connection.otherEnd)
        }
        try await group.shutdownGracefully()
    }

    /// A connection whose other end never reads is cut off once its unread output passes the limit;
    /// its neighbour, which reads, is not.
    @Test(arguments: [false, true]) func connectionThatDoesNotReadIsCutOffAtItsLimit(direct: Bool) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var limits = DaemonLimits()
        limits.maximumBufferedBytes = 64 * 1024
        let connections = try await Self.connect(2, group: group, direct: direct, limits: limits)
        let (silent, reading) = (connections[0], connections[1])
        let frame = ByteBuffer(bytes: FrameDecoder.frame(Array(repeating: UInt8(ascii: "x"), count: 1000)))
        let readBytes = Counter()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading.otherEnd, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                readBytes.value.withLock { $0 += count }
            }
        }
        reader.start()
        // Far more than the socket pair's kernel buffers and the limit together.
        for _ in 0..<2_000 where !silent.peer.isClosed {
            silent.peer.send(frame: frame)
            await Task.yield()
        }
        #expect(await Polling.until(timeout: 10) { silent.peer.isClosed })
        // As much again to the neighbour, at the pace it reads: it is served to the end.
        for sent in 1...2_000 {
            reading.peer.send(frame: frame)
            _ = await Polling.until(timeout: 5, every: 0.001) { readBytes.value.withLock { $0 } >= sent * frame.readableBytes }
        }
        #expect(readBytes.value.withLock { $0 } == 2_000 * frame.readableBytes)
        #expect(!reading.peer.isClosed)
        reading.peer.close()
        silent.peer.closed()
        reading.peer.closed()
        close(silent.otherEnd)
        close(reading.otherEnd)
        try await group.shutdownGracefully()
    }

    /// A socket found after the connection began (`ConnectionOutput.adopt`, the gpsd front door's case): what went
    /// through the loop before is not overtaken by a frame written straight into the socket, and once it has
    /// drained, frames go straight in. The loop is held busy so the first frame is still queued when the socket is
    /// adopted.
    @Test func anAdoptedSocketNeverOvertakesWhatTheLoopHolds() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let channel = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(inputOutput: ends[0]).get()
        let output = ConnectionOutput(
            channel: channel, writer: LoopWriter(eventLoop: loop), socket: -1, maximumBufferedBytes: 1 << 20
        ) { _ in }
        let release = DispatchSemaphore(value: 0)
        loop.execute { release.wait() }
        output.send(ByteBuffer(string: "A\n"))
        output.adopt(socket: dup(ends[0]))
        output.send(ByteBuffer(string: "B\n"))
        // Nothing can have reached the other end: the loop is held, and B must wait behind A.
        var probe = [UInt8](repeating: 0, count: 16)
        let early = probe.withUnsafeMutableBytes { recv(ends[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        #expect(early < 0)
        release.signal()
        UnixSocket.setReceiveTimeout(ends[1], seconds: 10)
        var received = ""
        while received.count < 4 {
            let bytes = UnixSocket.readSome(ends[1])
            if bytes.isEmpty { break }
            received += String(decoding: bytes, as: UTF8.self)
        }
        #expect(received == "A\nB\n")
        // Drained (seen by a loop task after the write's completion, which cleared the way): the next frame goes
        // straight into the socket, written before `send` returns, while the loop is held again.
        #expect(await Polling.until(timeout: 10) {
            (try? await loop.submit { (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 1 }.get()) == 0
        })
        loop.execute { release.wait() }
        output.send(ByteBuffer(string: "C\n"))
        let direct = probe.withUnsafeMutableBytes { recv(ends[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        release.signal()
        #expect(direct == 2)
        output.close()
        output.closed()
        close(ends[1])
        try await group.shutdownGracefully()
    }
}

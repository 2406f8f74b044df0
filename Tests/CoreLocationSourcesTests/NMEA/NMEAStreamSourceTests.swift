import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct NMEAStreamSourceReplayTests {
    @Test func replaysAtTheRecordedPace() throws {
        let scheduler = ManualScheduler()
        let source = NMEAStreamSource(
            input: .file(path: fixturePath("nmea/globalsat-bu353s4.nmea"), pace: .realTime), scheduler: scheduler
        )
        #expect(source.descriptor.isSimulated)
        let log = NMEAEventLog()
        source.start(log.handler)
        scheduler.runDue()
        #expect(log.fixes.count == 1)
        scheduler.advance(by: 0.999)
        #expect(log.fixes.count == 1)
        scheduler.advance(by: 0.001)
        #expect(log.fixes.count == 2)
        scheduler.advance(by: 2)
        #expect(log.fixes.count == 4)
        #expect(log.all.last == .finished)
        #expect(log.fixes.map(\.timestamp) == (19...22).map { utc(2014, 12, 31, 3, 7, Double($0)) })
        #expect(log.fixes.allSatisfy { $0.isSimulated && $0.isFromAccessory })
        #expect(source.status.statistics.decoded == 15)
        #expect(source.status.satellitesInView == 12)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func pausesAndResumes() {
        let scheduler = ManualScheduler()
        let source = NMEAStreamSource(
            input: .file(path: fixturePath("nmea/globalsat-bu353s4.nmea"), pace: .recorded(speed: 2)),
            scheduler: scheduler
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        scheduler.advance(by: 0.5)  // speed 2: the second epoch is due after 0.5 s
        #expect(log.fixes.count == 2)
        source.stop()
        scheduler.advance(by: 10)
        #expect(log.fixes.count == 2)
        source.start(log.handler)
        scheduler.runDue()
        #expect(log.fixes.count == 3)
        #expect(log.fixes.last?.timestamp == utc(2014, 12, 31, 3, 7, 21))
        source.stop()
    }

    @Test func asFastAsPossible() {
        let scheduler = ManualScheduler()
        let source = NMEAStreamSource(
            input: .file(path: fixturePath("nmea/furuno-gt88.nmea"), pace: .asFastAsPossible), scheduler: scheduler
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        scheduler.runDue()
        #expect(log.fixes.count == 2)
        #expect(log.all.last == .finished)
        #expect(scheduler.now == 0)
    }

    @Test func missingFileIsUnavailableThenFinished() {
        let scheduler = ManualScheduler()
        let path = "/nonexistent/drive.nmea"
        let source = NMEAStreamSource(input: .file(path: path, pace: .realTime), scheduler: scheduler)
        let log = NMEAEventLog()
        source.start(log.handler)
        #expect(log.unavailableReasons.count == 1)
        #expect(log.unavailableReasons.first?.contains(path) == true)
        #expect(log.all.last == .finished)
    }

    @Test func noFixEpochsAreUnavailableNeverLocations() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nofix-\(getpid()).nmea").path
        let text = (0..<5).map { nmea("GPGGA,12000\($0).00,,,,,0,00,99.99,,,,,,") }.joined(separator: "\n") + "\n"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let scheduler = ManualScheduler()
        let source = NMEAStreamSource(input: .file(path: path, pace: .realTime), scheduler: scheduler)
        let log = NMEAEventLog()
        source.start(log.handler)
        scheduler.advance(by: 10)
        #expect(log.fixes.isEmpty)
        #expect(log.unavailableReasons == Array(repeating: "no fix (GGA quality 0)", count: 5))
        #expect(source.status.fixMode == .noFix)
    }
}

/// Live inputs on real descriptors: a pseudo-terminal (a real tty on Linux), a loopback TCP
/// listener, and a pipe standing in for stdin.
@Suite(.serialized) struct NMEAStreamSourceLiveTests {
    @Test func serialDeviceOnAPseudoTerminal() throws {
        let pty = try #require(PseudoTerminal())
        defer { pty.close() }
        let source = NMEAStreamSource(
            input: .serial(path: pty.slavePath, baud: 38_400), scheduler: DispatchScheduler(), reopenInterval: 60
        )
        #expect(!source.descriptor.isSimulated)
        let log = NMEAEventLog()
        source.start(log.handler)
        defer { source.stop() }
        #expect(waitFor { source.isOpen })
        // termios as configured: 38400 baud, raw (no canonical mode, no echo), receiver on.
        let settings = try #require(pty.slaveSettings())
        #expect(inputSpeed(settings) == speed_t(B38400))
        #expect(settings.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(settings.c_cflag & tcflag_t(CREAD | CLOCAL) == tcflag_t(CREAD | CLOCAL))
        #expect(settings.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))

        pty.write(Array(try fixture("nmea/globalsat-bu353s4.nmea")))
        #expect(log.wait { events in events.filter { if case .fix = $0 { true } else { false } }.count >= 4 })
        #expect(log.fixes.first?.latitude == -(37 + 47.0873 / 60))
        #expect(log.fixes.allSatisfy { $0.isFromAccessory && !$0.isSimulated })

        // Unplugged: the master closes, the slave read fails.
        pty.close()
        #expect(log.wait { events in events.contains { if case .unavailable = $0 { true } else { false } } })
        #expect(log.unavailableReasons.first?.contains(pty.slavePath) == true)
        #expect(log.fixes.count == 4)
    }

    @Test func baudDetectionOnAPseudoTerminal() throws {
        let pty = try #require(PseudoTerminal())
        defer { pty.close() }
        let source = NMEAStreamSource(input: .serial(path: pty.slavePath, baud: nil), scheduler: DispatchScheduler())
        let log = NMEAEventLog()
        source.start(log.handler)
        defer { source.stop() }
        #expect(waitFor { source.isOpen })
        #expect(inputSpeed(try #require(pty.slaveSettings())) == speed_t(B9600))
        // What a receiver at another rate looks like: bytes without a valid sentence. After the
        // byte budget the detector moves on to 4800 baud.
        var garbage = SplitMix64(seed: 3)
        pty.write((0..<NMEABaudDetector.byteBudget + 100).map { _ in UInt8(truncatingIfNeeded: garbage.next() | 0x80) })
        #expect(waitFor { pty.slaveSettings().map(inputSpeed) == speed_t(B4800) })
        pty.write(Array(try fixture("nmea/globalsat-bu353s4.nmea")))
        #expect(waitFor { source.detectedBaudRate == 4_800 })
        #expect(log.wait { events in events.contains { if case .fix = $0 { true } else { false } } })
    }

    @Test func tcpStreamFromALoopbackListener() throws {
        let listener = try #require(NMEALoopbackListener())
        let source = NMEAStreamSource(
            input: .tcp(host: "127.0.0.1", port: listener.port), scheduler: DispatchScheduler(), reopenInterval: 60
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        defer { source.stop() }
        let data = Array(try fixture("nmea/furuno-gt88.nmea"))
        listener.acceptSendAndClose(data)
        #expect(log.wait { events in events.filter { if case .fix = $0 { true } else { false } }.count >= 2 })
        #expect(log.wait { events in events.contains { if case .unavailable = $0 { true } else { false } } })
        #expect(log.unavailableReasons.first?.contains("tcp://127.0.0.1:\(listener.port)") == true)
        #expect(source.status.satellitesUsed == 11)
        listener.close()
    }

    @Test func tcpRefusedIsUnavailableNamingTheAddress() throws {
        let listener = try #require(NMEALoopbackListener())
        let port = listener.port
        listener.close()  // nothing listens there any more
        let source = NMEAStreamSource(
            input: .tcp(host: "127.0.0.1", port: port), scheduler: DispatchScheduler(), reopenInterval: 60
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        defer { source.stop() }
        #expect(log.wait { !$0.isEmpty })
        #expect(log.unavailableReasons.first?.contains("127.0.0.1:\(port)") == true)
        #expect(log.fixes.isEmpty)
    }

    @Test func pipeAsStandardInputEndsWithFinished() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let source = NMEAStreamSource(
            input: .stdin, endpoint: .descriptor(ends[0], label: "stdin"), scheduler: DispatchScheduler(),
            id: SourceID("stdin"), referenceDate: nil, reopenInterval: 60, silenceTimeout: 60,
            logger: .init(label: "test")
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        defer {
            source.stop()
            close(ends[0])
        }
        let data = Array(try fixture("nmea/bandg-zeus2.nmea"))
        _ = data.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        #expect(log.wait { $0.last == .finished })
        #expect(log.fixes.count == 3)
        #expect(log.fixes[1].timestamp == utc(2018, 8, 20, 9, 47, 37))
    }
}

/// A TCP listener on 127.0.0.1 with a kernel-chosen port.
final class NMEALoopbackListener: Sendable {
    let fd: Int32
    let port: Int

    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            _ = Glibc.close(fd)
            return nil
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one client on a thread, sends it `bytes` and hangs up.
    func acceptSendAndClose(_ bytes: [UInt8]) {
        let fd = self.fd
        Thread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = Glibc.close(client)
        }.start()
    }

    func close() { _ = Glibc.close(fd) }
}

@Suite(.serialized) struct NMEAStreamSourceSilenceTests {
    /// A receiver that sends nothing (wrong port, wrong rate, dead antenna feed): the source keeps
    /// saying `.unavailable` on the scheduler's timeline, so the engine can time out and fall back.
    @Test func silenceIsReportedOnTheSchedulersClock() throws {
        let pty = try #require(PseudoTerminal())
        defer { pty.close() }
        let scheduler = ManualScheduler()
        let source = NMEAStreamSource(
            input: .serial(path: pty.slavePath, baud: 9_600), scheduler: scheduler, silenceTimeout: 3
        )
        let log = NMEAEventLog()
        source.start(log.handler)
        defer { source.stop() }
        #expect(waitFor { source.isOpen })
        #expect(log.all.isEmpty)
        scheduler.advance(by: 3)
        #expect(log.wait { $0.count == 1 })
        #expect(log.unavailableReasons == ["no NMEA data from \(pty.slavePath) for 3 s"])
        scheduler.advance(by: 3)
        #expect(log.wait { $0.count == 2 })
        #expect(log.fixes.isEmpty)
        #expect(source.status.description == "no report yet; 0 sentences, 0 dropped")
    }

    @Test func statusLine() throws {
        let result = runPipeline(try fixture("nmea/furuno-gt88.nmea"))
        #expect(result.status.description.hasPrefix("3D fix (DGPS/SBAS), 11 used / 18 in view, HDOP 1.3; "))
    }
}

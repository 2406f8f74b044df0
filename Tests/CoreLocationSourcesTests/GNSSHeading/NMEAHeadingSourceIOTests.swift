import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

#if canImport(Glibc)
    import Glibc
#endif

/// The reader thread on real descriptors. Waits are for events (semaphores with a generous
/// timeout so a broken build fails instead of hanging), never fixed sleeps.
struct NMEAHeadingSourceIOTests {
    final class Signals: Sendable {
        let recorder = GNSSHeadingRecorder()
        let sample = DispatchSemaphore(value: 0)
        let unavailable = DispatchSemaphore(value: 0)
        var handler: @Sendable (HeadingSourceEvent) -> Void {
            { [self] event in
                recorder.handler(event)
                switch event {
                case .sample: sample.signal()
                case .unavailable: unavailable.signal()
                }
            }
        }
    }

    @Test func readsATCPStreamAndReportsItsEnd() throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(listener.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let source = NMEAHeadingSource(
            input: .tcp(host: "127.0.0.1", port: Int(listener.port)), scheduler: DispatchScheduler(),
            reopenInterval: 30)
        let signals = Signals()
        source.start(signals.handler)
        defer { source.stop() }
        let client = accept(listener.fd, nil, nil)
        try #require(client >= 0)
        let lines = [nmea("GPHDT,12.5,T"), nmea("GNTHS,13.0,V"), nmea("GNTHS,13.25,A")]
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        let written = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
        #expect(signals.sample.wait(timeout: .now() + 10) == .success)
        #expect(signals.sample.wait(timeout: .now() + 10) == .success)
        #expect(signals.recorder.samples.compactMap(\.reported?.trueHeading) == [12.5, 13.25])
        _ = Glibc.close(client)
        #expect(signals.unavailable.wait(timeout: .now() + 10) == .success)
        #expect(signals.recorder.unavailable.first?.contains("closed") == true)
    }

    @Test func readsARecordedFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gnss-heading-\(getpid()).nmea").path
        let text = [nmea("GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), nmea("GPHDT,301.5,T")]
            .joined(separator: "\n") + "\n"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let source = NMEAHeadingSource(
            input: .file(path: path, pace: .asFastAsPossible), scheduler: DispatchScheduler())
        let signals = Signals()
        source.start(signals.handler)
        defer { source.stop() }
        #expect(signals.unavailable.wait(timeout: .now() + 10) == .success)
        #expect(signals.recorder.samples.compactMap(\.reported?.trueHeading) == [301.5])
    }
}

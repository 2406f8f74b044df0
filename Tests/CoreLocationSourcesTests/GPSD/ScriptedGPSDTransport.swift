import Foundation
import CoreLocationEngine
import Synchronization

@testable import CoreLocationSources

/// A transport whose connections the test drives by hand: each `open` is recorded with the
/// scheduler time it happened at, and the test delivers `connected`, bytes and `closed`.
final class ScriptedGPSDTransport: GPSDTransport {
    final class Channel: GPSDChannel {
        let handler: @Sendable (GPSDTransportEvent) -> Void
        private let log = Mutex<(sent: [String], closed: Bool)>(([], false))
        init(handler: @escaping @Sendable (GPSDTransportEvent) -> Void) { self.handler = handler }
        func send(_ line: String) { log.withLock { $0.sent.append(line) } }
        func close() { log.withLock { $0.closed = true } }
        var sent: [String] { log.withLock { $0.sent } }
        var isClosed: Bool { log.withLock { $0.closed } }
        func deliver(_ event: GPSDTransportEvent) { handler(event) }
    }

    private let opened = Mutex<[(time: Double, channel: Channel)]>([])
    private let clock: @Sendable () -> Double
    /// Events delivered from inside `open`, before it returns (a real socket thread can be that fast).
    let eventsDuringOpen: @Sendable (Int) -> [GPSDTransportEvent]

    init(
        clock: @escaping @Sendable () -> Double,
        eventsDuringOpen: @escaping @Sendable (Int) -> [GPSDTransportEvent] = { _ in [] }
    ) {
        self.clock = clock
        self.eventsDuringOpen = eventsDuringOpen
    }

    func open(_ endpoint: GPSDEndpoint, handler: @escaping @Sendable (GPSDTransportEvent) -> Void) -> any GPSDChannel {
        let channel = Channel(handler: handler)
        let now = clock()
        let index = opened.withLock {
            $0.append((now, channel))
            return $0.count - 1
        }
        for event in eventsDuringOpen(index) { channel.deliver(event) }
        return channel
    }

    var openTimes: [Double] { opened.withLock { $0.map(\.time) } }
    var channels: [Channel] { opened.withLock { $0.map(\.channel) } }
}

extension EventRecorder {
    var unavailableCount: Int { events.filter { if case .unavailable = $0 { true } else { false } }.count }
}

/// gpsd 3.22's own output for Tests/GPSDIntegrationTests/Fixtures/walk.nmea, without the header.
func recordedGPSDOutput() throws -> [UInt8] {
    let text = String(decoding: try fixture("gpsd/walk-gpsd-3.22.jsonl"), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
    return Array(lines.joined(separator: "\n").utf8)
}

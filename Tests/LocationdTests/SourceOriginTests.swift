import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import Foundation
import Synchronization
import Testing

@testable import LocationdCommand

/// locationd's status names the device of a source's last fix when the source gathers from several (a modem
/// source, `FixOriginReporting`, decision 0035): the shared sources ask the real source, not a proxy, and the
/// answer follows the source's latest fix.
@Suite struct SourceOriginTests {
    /// A source that says which device made its last fix, as the modem sources do.
    final class TwoDeviceSource: FixOriginReporting {
        let descriptor = SourceDescriptor(
            id: SourceID("modem:gnss"), kind: "modem-gnss", expectedAccuracy: 5, powerCost: 100, isSimulated: false)
        private let state = Mutex<(handler: (@Sendable (SourceEvent) -> Void)?, origin: String?)>((nil, nil))

        var lastFixOrigin: String? { state.withLock { $0.origin } }
        func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) { state.withLock { $0.handler = handler } }
        func stop() { state.withLock { $0.handler = nil } }

        /// A fix from `device`: the origin changes first, as a modem source records it before it delivers.
        func fix(from device: String, latitude: Double) {
            let handler = state.withLock { state in
                state.origin = device
                return state.handler
            }
            handler?(.fix(Fix(latitude: latitude, longitude: 8.4, horizontalAccuracy: 5, timestamp: Date())))
        }
    }

    /// A source of one device, which names none.
    final class PlainSource: LocationSource {
        let descriptor = SourceDescriptor(
            id: SourceID("gpsd:"), kind: "gpsd", expectedAccuracy: 5, powerCost: 100, isSimulated: false)
        func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {}
        func stop() {}
    }

    @Test func theReportNamesTheDeviceOfTheLatestFix() throws {
        let modem = TwoDeviceSource()
        let shared = SharedSources([PlainSource(), modem], clock: { 100 })
        #expect(shared.report().map(\.origin) == [nil, nil])  // nothing heard yet

        let proxies = shared.proxies()
        for proxy in proxies { proxy.start { _ in } }
        modem.fix(from: "E1750 (/org/freedesktop/ModemManager1/Modem/0)", latitude: 49.0)
        #expect(shared.report().map(\.origin) == [nil, "E1750 (/org/freedesktop/ModemManager1/Modem/0)"])
        modem.fix(from: "EM7455 (/org/freedesktop/ModemManager1/Modem/1)", latitude: 49.1)
        let report = shared.report()
        #expect(report.map(\.origin) == [nil, "EM7455 (/org/freedesktop/ModemManager1/Modem/1)"])
        #expect(report.map(\.state) == ["waiting", "receiving"])
        for proxy in proxies { proxy.stop() }
    }

    /// The wire form: `origin` is optional, so a status from a daemon that predates it still decodes, and one that
    /// carries it round-trips.
    @Test func theStatusCarriesTheOriginAndOlderStatusesStillDecode() throws {
        let source = DaemonStatus.Source(
            id: "modem:", name: "modem", powered: true, onTime: 3, state: "receiving", lastFix: 2,
            origin: "E1750 (/org/freedesktop/ModemManager1/Modem/0), cell LTE 262-01 area 2B67 cell 1A60103")
        let decoded = try JSONDecoder().decode(DaemonStatus.Source.self, from: JSONEncoder().encode(source))
        #expect(decoded == source)
        let older = Data(#"{"id":"gpsd:","name":"gpsd","powered":false,"onTime":0}"#.utf8)
        #expect(try JSONDecoder().decode(DaemonStatus.Source.self, from: older).origin == nil)
    }
}

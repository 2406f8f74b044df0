import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Testing

@Suite struct IPLocationSourceTests {
    @Test func reportsAtStartAndEveryRefresh() async throws {
        let scheduler = ManualScheduler()
        let source = IPLocationSource(
            configuration: .init(databasePath: Fixtures.city, address: IPAddress("216.160.83.56"), refreshInterval: 300),
            scheduler: scheduler, interfaces: { [] })
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        #expect(events.values == [
            .fix(Fix(latitude: 47.2513, longitude: -122.3149, horizontalAccuracy: 22_000, timestamp: scheduler.wallNow))
        ])
        scheduler.advance(by: 300)
        #expect(events.values.count == 2)
        source.stop()
        scheduler.advance(by: 900)
        #expect(events.values.count == 2)
        #expect(source.descriptor.kind == "ip")
    }

    @Test func saysWhyThereIsNoFix() async throws {
        let scheduler = ManualScheduler()
        let cases: [(IPLocationSource.Configuration, [IPAddress], String)] = [
            (.init(databasePath: Fixtures.city, address: IPAddress("192.168.1.4")), [], "private"),
            (.init(databasePath: Fixtures.city), ["10.0.0.2", "fe80::1"].compactMap(IPAddress.init), "no global address"),
            (.init(databasePath: "/nonexistent.mmdb", address: IPAddress("81.2.69.160")), [], "no such IP database"),
            (.init(databasePath: Fixtures.city, address: IPAddress("8.8.8.8")), [], "does not know"),
        ]
        for (configuration, interfaces, words) in cases {
            let source = IPLocationSource(configuration: configuration, scheduler: scheduler, interfaces: { interfaces })
            let events = Recorder<SourceEvent>()
            source.start { events.append($0) }
            source.stop()
            guard case .unavailable(let reason) = events.values.first else {
                Issue.record("\(words): \(events.values)")
                continue
            }
            #expect(reason.contains(words), "\(reason)")
        }
    }
}

import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Logging
import Testing

/// `ip:` and `wifi:` URLs (docs/decisions/0038): options read exactly, bad ones refused, the sources made through
/// the registry answer as configured.
@Suite struct NetworkSourceURLTests {
    func parse(_ text: String, environment: [String: String] = [:]) throws -> NetworkSourceURL {
        guard case .external(let spec) = try SourceSpec.parse(text) else { throw BadTestAddress() }
        return try NetworkSourceURL.parse(spec, environment: environment)
    }

    @Test func readsIPAndWiFiOptions() throws {
        let environment = ["CORELOCATION_IP_DATABASE": "/env/db.mmdb", "CORELOCATION_IP_ADDRESS": "2.125.160.216"]
        #expect(
            try parse("ip:", environment: environment)
                == .ip(.init(databasePath: "/env/db.mmdb", address: try ip("2.125.160.216"))))
        #expect(
            try parse("ip:/data/city.mmdb?address=81.2.69.160&refresh=60", environment: environment)
                == .ip(.init(databasePath: "/data/city.mmdb", address: try ip("81.2.69.160"), refreshInterval: 60)))
        #expect(try parse("ip:///data/city.mmdb") == .ip(.init(databasePath: "/data/city.mmdb")))
        var wifi = NetworkSourceURL.WiFi()
        #expect(try parse("wifi:") == .wifi(wifi))
        wifi.fallback = .none
        wifi.interval = 90
        #expect(try parse("wifi:?fallback=none&interval=90") == .wifi(wifi))
        wifi = NetworkSourceURL.WiFi(fallback: .database("/x.mmdb"))
        #expect(try parse("wifi:?fallback=/x.mmdb") == .wifi(wifi))
        for bad in ["ip:?address=999.1.1.1", "ip:?refresh=0", "ip:?colour=red", "wifi:/path", "wifi:?interval=-1",
            "wifi:?speed=2", "ip:?address"]
        {
            #expect(throws: SourceConfigurationError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func registeredMakersMakeTheIPSourceTheURLNames() async throws {
        NetworkSourceMakers.register()
        // Validation runs at parse time once registered.
        #expect(throws: SourceConfigurationError.self) { try SourceSpec.parse("ip:?address=nowhere") }
        let scheduler = ManualScheduler()
        let url = "ip:\(Fixtures.city)?address=81.2.69.160"
        let made = try SourceFactory.makeSources(
            SourceSpec.parse(url), environment: [:], scheduler: scheduler, logger: Logger(label: "t"))
        let source = try #require(made.first)
        #expect(made.count == 1)
        #expect(source.descriptor.id.rawValue == url)
        #expect(source.descriptor.kind == "ip")
        let events = Recorder<SourceEvent>()
        source.start { events.append($0) }
        source.stop()
        // mmdblookup --file GeoIP2-City-Test.mmdb --ip 81.2.69.160 location: 51.5142, -0.0931, radius 100 km.
        #expect(events.values == [
            .fix(Fix(latitude: 51.5142, longitude: -0.0931, horizontalAccuracy: 100_000, timestamp: scheduler.wallNow))
        ])
        // A database that is not there yet makes a source that says so, not a configuration error.
        let missing = try SourceFactory.makeSources(
            SourceSpec.parse("ip:/nonexistent/city.mmdb?address=81.2.69.160"), environment: [:], scheduler: scheduler,
            logger: Logger(label: "t"))
        let missingEvents = Recorder<SourceEvent>()
        missing.first?.start { missingEvents.append($0) }
        missing.first?.stop()
        guard case .unavailable(let reason)? = missingEvents.values.first else {
            Issue.record("\(missingEvents.values)")
            return
        }
        #expect(reason.contains("no such IP database"), "\(reason)")
        let wifi = try SourceFactory.makeSources(
            SourceSpec.parse("wifi:?fallback=none"), environment: [:], scheduler: scheduler, logger: Logger(label: "t"))
        #expect(wifi.map(\.descriptor.kind) == ["wifi"])
        #expect(wifi.first is WiFiLocationSource)
    }
}

import CoreLocationDBus
import CoreLocationDBusTestSupport
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Testing

/// A scanner that returns what the test says.
struct FixedScanner: WiFiScanner {
    var accessPoints: [WiFiAccessPoint]
    func scan() async throws -> [WiFiAccessPoint] { accessPoints }
}

func accessPoint(_ last: Int, _ dBm: Int, ssid: String = "cafe") -> WiFiAccessPoint {
    WiFiAccessPoint(
        bssid: String(format: "02:00:00:00:00:%02X", last), ssid: Array(ssid.utf8), signalDBm: dBm, frequency: 2412)
}

/// The geolocate client against the local stand-in: consent, filtering, cache, rate limit, faults.
@Suite(.enabled(if: GeolocateStandIn.isAvailable, "needs /usr/bin/python3"))
struct WiFiGeolocatorTests {
    let standIn: GeolocateStandIn
    let settings: NetworkSettingsStore
    let scheduler = ManualScheduler()
    let scratch: ScratchDirectory

    init() async throws {
        standIn = try await GeolocateStandIn()
        scratch = try Fixtures.scratch()
        settings = NetworkSettingsStore(path: scratch.path("network.json"))
    }

    func consent() throws {
        try settings.save(NetworkSettings(wifiPositioning: true, geolocateURL: standIn.url.absoluteString))
    }

    func geolocator(_ configuration: WiFiGeolocator.Configuration = .init()) -> WiFiGeolocator {
        WiFiGeolocator(
            configuration: configuration, settings: settings, transport: AsyncHTTPGeolocateTransport(),
            scheduler: scheduler)
    }

    static let scan = [accessPoint(1, -50), accessPoint(2, -60), accessPoint(3, -70)]

    @Test func nothingIsSentWithoutConsent() async throws {
        let geolocator = geolocator()
        await expectAsyncError(.notConsented) { try await geolocator.locate(Self.scan) }
        // A settings file that says off, or that is garbage, is no consent either.
        try settings.save(NetworkSettings(wifiPositioning: false, geolocateURL: standIn.url.absoluteString))
        await expectAsyncError(.notConsented) { try await geolocator.locate(Self.scan) }
        try Data("{wifiPositioning: yes".utf8).write(to: URL(fileURLWithPath: settings.path))
        await expectAsyncError(.notConsented) { try await geolocator.locate(Self.scan) }
        // The Wi-Fi source with no consent and no fallback: unavailable, and still nothing sent.
        let source = WiFiLocationSource(
            scanner: FixedScanner(accessPoints: Self.scan), geolocator: geolocator, scheduler: scheduler)
        guard case .unavailable(let reason) = await source.locateOnce() else {
            Issue.record("a fix without consent")
            return
        }
        #expect(reason.contains("off"))
        #expect(try standIn.requests().isEmpty)
        #expect(geolocator.requestCount == 0)
    }

    @Test func aScanBecomesTheStandInsAnswer() async throws {
        try consent()
        let geolocator = geolocator()
        let scan = Self.scan + [
            accessPoint(4, -40, ssid: ""),  // hidden
            accessPoint(5, -45, ssid: "Home_nomap"),  // opted out
            WiFiAccessPoint(bssid: "ff:ff:ff:ff:ff:ff", ssid: Array("x".utf8), signalDBm: -30),
            WiFiAccessPoint(bssid: "not-a-mac", ssid: Array("x".utf8), signalDBm: -30),
        ]
        let reply = try await geolocator.locate(scan)
        let requests = try standIn.requests()
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.userAgent == WiFiGeolocator.userAgent)
        #expect(request.body?.considerIp == false)
        #expect(request.body?.wifiAccessPoints?.map(\.macAddress) == ["02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:03"])
        #expect(request.body?.wifiAccessPoints?.map(\.signalStrength) == [-50, -60, -70])
        // The stand-in's weighted centroid of APs 1–3 (weights 10^(dBm/20)), computed independently here.
        let weights = [-50.0, -60, -70].map { pow(10, $0 / 20) }
        let lats = [48.85800, 48.85830, 48.85780]
        let lons = [2.29450, 2.29500, 2.29520]
        let total = weights.reduce(0, +)
        let lat = zip(lats, weights).map { $0 * $1 }.reduce(0, +) / total
        let lon = zip(lons, weights).map { $0 * $1 }.reduce(0, +) / total
        #expect(abs(reply.location.lat - lat) < 1e-12)
        #expect(abs(reply.location.lng - lon) < 1e-12)
        #expect(reply.accuracy >= 20)
    }

    @Test func tooFewAccessPointsSendNothing() async throws {
        try consent()
        let geolocator = geolocator()
        await expectAsyncError(.tooFewAccessPoints) { try await geolocator.locate([]) }
        await expectAsyncError(.tooFewAccessPoints) { try await geolocator.locate([accessPoint(1, -50)]) }
        // Two entries, but one hidden and the other the same BSSID twice.
        await expectAsyncError(.tooFewAccessPoints) {
            try await geolocator.locate([accessPoint(1, -50), accessPoint(1, -55), accessPoint(2, -50, ssid: "")])
        }
        #expect(try standIn.requests().isEmpty)
    }

    @Test func cellsTravelInTheSameRequestAndAloneAreEnough() async throws {
        try consent()
        let geolocator = geolocator()
        let lte = try CellIdentity(modemManager: "262,01,0,1A60103,2B67", radio: .lte)
        // Wi-Fi and the serving cell in one request: the stand-in answers from Wi-Fi (three known APs).
        _ = try await geolocator.locate(Self.scan, cells: [lte])
        let first = try #require(try standIn.requests().first?.body)
        #expect(first.wifiAccessPoints?.count == 3)
        let tower = try #require(first.cellTowers?.first)
        #expect(first.cellTowers?.count == 1)
        #expect(tower.radioType == "lte")
        #expect(tower.mobileCountryCode == 262)
        #expect(tower.mobileNetworkCode == 1)
        #expect(tower.locationAreaCode == 0x2B67)  // the TAC: the LAC is 0 on LTE
        #expect(tower.cellId == 0x1A60103)
        // Elsewhere, one access point only: the cell alone is asked (no wifiAccessPoints), after the rate limit.
        let gsm = try CellIdentity(modemManager: "262,01,1A2B,4E21,0", radio: .gsm)
        await expectAsyncError(.rateLimited) { try await geolocator.locate([accessPoint(9, -50)], cells: [gsm]) }
        scheduler.advance(by: 61)
        let reply = try await geolocator.locate([accessPoint(9, -50)], cells: [gsm])
        #expect(reply.location.lat == 52.5180)
        #expect(reply.location.lng == 13.3760)
        #expect(reply.accuracy == 3000)
        let second = try #require(try standIn.requests().last?.body)
        #expect(second.wifiAccessPoints == nil)
        #expect(second.cellTowers?.first?.radioType == "gsm")
        #expect(second.cellTowers?.first?.locationAreaCode == 0x1A2B)
        // The same serving cell again, still without Wi-Fi: the cache answers, nothing sent.
        #expect(try await geolocator.locate([], cells: [gsm]) == reply)
        #expect(try standIn.requests().count == 2)
        // A cell the service does not know: 404, notFound.
        scheduler.advance(by: 61)
        let unknown = try CellIdentity(modemManager: "262,01,1A2B,4E23,0", radio: .gsm)
        await expectAsyncError(.notFound) { try await geolocator.locate([], cells: [unknown]) }
    }

    @Test func theCacheAndTheRateLimitHoldRequestsBack() async throws {
        try consent()
        let geolocator = geolocator()
        let first = try await geolocator.locate(Self.scan)
        // The same place (2 of 3 in common): answered from the cache.
        let again = try await geolocator.locate([accessPoint(1, -52), accessPoint(2, -61)])
        #expect(again == first)
        #expect(try standIn.requests().count == 1)
        // Another place within the minimum interval: held back, nothing sent.
        let elsewhere = [accessPoint(4, -50), accessPoint(5, -60)]
        await expectAsyncError(.rateLimited) { try await geolocator.locate(elsewhere) }
        #expect(try standIn.requests().count == 1)
        scheduler.advance(by: 61)
        _ = try await geolocator.locate(elsewhere)
        #expect(try standIn.requests().count == 2)
        // After the cache lifetime the first place is asked again.
        scheduler.advance(by: 601)
        _ = try await geolocator.locate(Self.scan)
        #expect(try standIn.requests().count == 3)
    }

    @Test func faultsGiveTheirErrors() async throws {
        try consent()
        var configuration = WiFiGeolocator.Configuration()
        configuration.minimumInterval = 0
        configuration.failureBackoff = 0
        configuration.cacheLifetime = 0
        configuration.timeout = .milliseconds(500)
        let geolocator = geolocator(configuration)
        let cases: [(String, NetworkSourceError.Code)] = [
            ("404", .notFound), ("400", .serviceFailed), ("500", .serviceFailed), ("503", .serviceFailed),
            ("malformed", .invalidReply), ("slow", .serviceFailed),
        ]
        for (fault, code) in cases {
            try await standIn.inject(fault, times: 1)
            await expectAsyncError(code, "\(fault)") { try await geolocator.locate(Self.scan) }
            // Which requests met which fault, should the answer above be wrong.
            let applied = try standIn.requests().map { $0.fault ?? "?" }
            #expect(applied.last == fault, "faults applied in order: \(applied)")
            scheduler.advance(by: 1)
        }
        // Access points the service does not know: its 404.
        await expectAsyncError(.notFound) {
            try await geolocator.locate([WiFiAccessPoint(bssid: "02:00:00:00:99:01", ssid: [0x61], signalDBm: -50),
                WiFiAccessPoint(bssid: "02:00:00:00:99:02", ssid: [0x61], signalDBm: -50)])
        }
        #expect(try standIn.requests().count == cases.count + 1)
        // Healthy again.
        scheduler.advance(by: 1)
        _ = try await geolocator.locate(Self.scan)
    }

    @Test func a429BacksOff() async throws {
        try consent()
        var configuration = WiFiGeolocator.Configuration()
        configuration.minimumInterval = 0
        let geolocator = geolocator(configuration)
        try await standIn.inject("429", times: 1)
        await expectAsyncError(.rateLimited) { try await geolocator.locate(Self.scan) }
        scheduler.advance(by: 299)
        await expectAsyncError(.rateLimited) { try await geolocator.locate(Self.scan) }
        #expect(try standIn.requests().count == 1)
        scheduler.advance(by: 2)
        _ = try await geolocator.locate(Self.scan)
        #expect(try standIn.requests().count == 2)
    }

    @Test func wifiFailureFallsBackToIP() async throws {
        try consent()
        try await standIn.inject("500")
        let ip = IPLocationSource(
            configuration: .init(databasePath: Fixtures.city, address: IPAddress("81.2.69.160")), scheduler: scheduler)
        let source = WiFiLocationSource(
            scanner: FixedScanner(accessPoints: Self.scan), geolocator: geolocator(), fallback: ip, scheduler: scheduler)
        guard case .fix(let fix) = await source.locateOnce() else {
            Issue.record("no fallback fix")
            return
        }
        #expect(fix.latitude == 51.5142 && fix.longitude == -0.0931 && fix.horizontalAccuracy == 100_000)
        #expect(source.status.usedFallback)
        #expect(source.status.problem?.contains("500") == true)
    }
}

func expectAsyncError<T>(
    _ code: NetworkSourceError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), nothing thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as NetworkSourceError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

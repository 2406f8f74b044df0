import Foundation
import Testing
@testable import CoreLocationGeocoding

@Suite(.serialized) struct NominatimTests {
    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    func backend(_ server: LocalHTTPServer, timeout: TimeInterval = 5) -> NominatimBackend {
        NominatimBackend(baseURL: server.baseURL, timeout: timeout, minimumInterval: 0)
    }

    @Test func searchDecodesPlacesAndSendsPolicyHeaders() async throws {
        let server = try LocalHTTPServer(routes: [
            "/search": .respond(status: 200, body: try Self.fixture("nominatim-search-paris.json")),
        ])
        defer { server.stop() }
        let places = try await backend(server).forward(ForwardQuery(text: "Paris"), region: nil, language: "fr")
        #expect(places.count == 2)
        #expect(places[0].locality == "Paris")
        #expect(places[0].isoCountryCode == "FR")
        #expect(places[0].administrativeArea == "Île-de-France")
        #expect(places[1].administrativeArea == "Texas")
        #expect(places[1].subAdministrativeArea == "Lamar County")
        #expect(abs((places[0].regionLatitude ?? 0) - 48.85887) < 1e-4)
        let head = try #require(server.requests.first)
        #expect(head.contains("format=jsonv2"))
        #expect(head.contains("addressdetails=1"))
        #expect(head.contains("accept-language=fr"))
        #expect(head.lowercased().contains("user-agent: swift-corelocation/"))
    }

    @Test func reverseDecodesStreetAddress() async throws {
        let server = try LocalHTTPServer(routes: [
            "/reverse": .respond(status: 200, body: try Self.fixture("nominatim-reverse-eiffel.json")),
        ])
        defer { server.stop() }
        let places = try await backend(server).reverse(latitude: 48.8583, longitude: 2.2945, language: nil)
        let place = try #require(places.first)
        #expect(place.name == "Tour Eiffel")
        #expect(place.thoroughfare == "Avenue Anatole France")
        #expect(place.subThoroughfare == "5")
        #expect(place.postalCode == "75007")
        #expect(place.subLocality == "Paris 7e Arrondissement")
        #expect(place.areasOfInterest == ["Tour Eiffel"])
    }

    @Test func serviceUsesOnlineAnswersWithOfflineTimeZones() async throws {
        let server = try LocalHTTPServer(routes: [
            "/reverse": .respond(status: 200, body: try Self.fixture("nominatim-reverse-eiffel.json")),
        ])
        defer { server.stop() }
        var configuration = GeocodingService.Configuration()
        configuration.online = backend(server)
        let places = try await GeocodingService(configuration: configuration)
            .run(.reverse(latitude: 48.8583, longitude: 2.2945), language: nil)
        #expect(places.first?.postalCode == "75007")  // only the online answer has a postcode
        #expect(places.first?.timeZone == "Europe/Paris")
    }

    @Test func serviceFallsBackOfflineWhenServerFails() async throws {
        let server = try LocalHTTPServer(routes: ["/search": .respond(status: 503, body: "busy")])
        defer { server.stop() }
        var configuration = GeocodingService.Configuration()
        configuration.online = backend(server)
        let places = try await GeocodingService(configuration: configuration)
            .run(.forward(ForwardQuery(text: "Springfield, Illinois"), region: nil), language: nil)
        #expect(places.first?.subAdministrativeArea == "Sangamon County")
        #expect(server.requests.count == 1)
    }

    @Test func reverseAtSeaIsEmpty() async throws {
        let server = try LocalHTTPServer(routes: [
            "/reverse": .respond(status: 200, body: #"{"error":"Unable to geocode"}"#),
        ])
        defer { server.stop() }
        #expect(try await backend(server).reverse(latitude: 0, longitude: -30, language: nil).isEmpty)
    }

    @Test(arguments: [
        ("garbage", LocalHTTPServer.Reply.respond(status: 200, body: "<html>oops</html>"),
         GeocodingError.Code.badResponse),
        ("truncated", .respond(status: 200, body: #"[{"lat":"48.8"#), .badResponse),
        ("bad coordinate", .respond(status: 200, body: #"[{"lat":"north","lon":"2"}]"#), .badResponse),
        ("HTTP 500", .respond(status: 500, body: "{}"), .network),
        ("HTTP 429", .respond(status: 429, body: "{}"), .network),
    ])
    func badAnswersGiveDocumentedCodes(label: String, reply: LocalHTTPServer.Reply, code: GeocodingError.Code)
        async throws
    {
        let server = try LocalHTTPServer(routes: ["/search": reply])
        defer { server.stop() }
        await #expect(Comment(rawValue: label)) {
            try await backend(server).forward(ForwardQuery(text: "Paris"), region: nil, language: nil)
        } throws: { ($0 as? GeocodingError)?.code == code }
    }

    @Test func timeoutIsNetwork() async throws {
        let server = try LocalHTTPServer(routes: ["/search": .hang])
        defer { server.stop() }
        await #expect {
            try await backend(server, timeout: 1).forward(ForwardQuery(text: "Paris"), region: nil, language: nil)
        } throws: { ($0 as? GeocodingError)?.code == .network }
    }

    @Test func secondRequestWithinOneSecondIsThrottled() async throws {
        let server = try LocalHTTPServer(routes: [
            "/search": .respond(status: 200, body: try Self.fixture("nominatim-search-paris.json")),
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let backend = NominatimBackend(baseURL: server.baseURL, timeout: 5, now: clock.now)
        _ = try await backend.forward(ForwardQuery(text: "Paris"), region: nil, language: nil)
        await #expect { try await backend.forward(ForwardQuery(text: "Paris"), region: nil, language: nil) }
            throws: { ($0 as? GeocodingError)?.code == .throttled }
        clock.advance(1.01)
        #expect(try await backend.forward(ForwardQuery(text: "Paris"), region: nil, language: nil).count == 2)
        #expect(server.requests.count == 2)
    }
}

import Foundation
import Synchronization
import Testing
@testable import CoreLocationGeocoding

/// A backend that counts calls and answers from a fixed list (or fails with a fixed error).
final class CountingBackend: GeocodingBackend {
    let calls = Atomic<Int>(0)
    let answer: Result<[GeocodedPlace], GeocodingError>
    init(_ answer: Result<[GeocodedPlace], GeocodingError>) { self.answer = answer }

    func reverse(latitude: Double, longitude: Double, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        calls.add(1, ordering: .relaxed)
        return try answer.get()
    }

    func forward(_ query: ForwardQuery, region: SearchRegion?, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        calls.add(1, ordering: .relaxed)
        return try answer.get()
    }
}

/// A settable clock in seconds.
final class ManualClock: Sendable {
    let time = Mutex<Double>(0)
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    var now: @Sendable () -> Double { { [self] in time.withLock { $0 } } }
}

@Suite struct ServiceTests {
    static let oslo = GeocodedPlace(latitude: 59.91, longitude: 10.75)

    @Test func rateLimitRefusesThenRecoversAsTimePasses() async throws {
        let clock = ManualClock()
        var configuration = GeocodingService.Configuration()
        configuration.rateLimit = 2
        configuration.rateWindow = 60
        configuration.cacheCapacity = 0
        configuration.offline = CountingBackend(.success([Self.oslo]))
        configuration.now = clock.now
        let service = GeocodingService(configuration: configuration)
        _ = try await service.run(.reverse(latitude: 1, longitude: 1), language: nil)
        _ = try await service.run(.reverse(latitude: 2, longitude: 2), language: nil)
        await #expect { try await service.run(.reverse(latitude: 3, longitude: 3), language: nil) }
            throws: { ($0 as? GeocodingError)?.code == .throttled }
        clock.advance(60.5)
        #expect(try await service.run(.reverse(latitude: 3, longitude: 3), language: nil) == [Self.oslo])
    }

    @Test func repeatedRequestIsServedFromCache() async throws {
        let backend = CountingBackend(.success([Self.oslo]))
        var configuration = GeocodingService.Configuration()
        configuration.offline = backend
        configuration.rateLimit = 1
        let service = GeocodingService(configuration: configuration)
        for _ in 0..<3 { _ = try await service.run(.reverse(latitude: 59.91, longitude: 10.75), language: "nb") }
        #expect(backend.calls.load(ordering: .relaxed) == 1)
    }

    @Test func onlineFailureFallsBackToOffline() async throws {
        let online = CountingBackend(.failure(GeocodingError(.network, "down")))
        let offline = CountingBackend(.success([Self.oslo]))
        var configuration = GeocodingService.Configuration()
        configuration.online = online
        configuration.offline = offline
        let service = GeocodingService(configuration: configuration)
        #expect(try await service.run(.reverse(latitude: 59.91, longitude: 10.75), language: nil) == [Self.oslo])
        #expect(online.calls.load(ordering: .relaxed) == 1)
        #expect(offline.calls.load(ordering: .relaxed) == 1)
    }

    @Test func nothingFoundIsNoResultAndBadInputIsInvalid() async throws {
        var configuration = GeocodingService.Configuration()
        configuration.offline = CountingBackend(.success([]))
        let service = GeocodingService(configuration: configuration)
        await #expect { try await service.run(.reverse(latitude: 0, longitude: -30), language: nil) }
            throws: { ($0 as? GeocodingError)?.code == .noResult }
        await #expect { try await service.run(.reverse(latitude: .nan, longitude: 0), language: nil) }
            throws: { ($0 as? GeocodingError)?.code == .invalidInput }
        await #expect { try await service.run(.forward(ForwardQuery(name: " "), region: nil), language: nil) }
            throws: { ($0 as? GeocodingError)?.code == .invalidInput }
    }

    @Test func environmentConfiguresBackendAndLimit() {
        let configuration = GeocodingService.Configuration.fromEnvironment([
            "CORELOCATION_GEOCODER_URL": "http://127.0.0.1:8080", "CORELOCATION_GEOCODER_RATE_LIMIT": "5/10",
        ])
        #expect(configuration.online != nil)
        #expect(configuration.rateLimit == 5)
        #expect(configuration.rateWindow == 10)
        #expect(GeocodingService.Configuration.fromEnvironment(["CORELOCATION_GEOCODER_URL": "ftp://x"]).online == nil)
    }
}

import CoreLocation
import Dispatch
import Foundation
import CoreLocationGeocoding
import Testing

/// A backend that holds every request until `release()` (or until its task is cancelled).
final class GateBackend: GeocodingBackend {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    let answer: [GeocodedPlace]

    init(answer: [GeocodedPlace]) {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        self.answer = answer
    }

    func release() { continuation.yield() }

    private func wait() async {
        for await _ in stream { return }
    }

    func reverse(latitude: Double, longitude: Double, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        await wait()
        return answer
    }

    func forward(_ query: ForwardQuery, region: SearchRegion?, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        await wait()
        return answer
    }
}

struct FailingLoaderError: Error {}

@Suite struct GeocoderTests {
    static let mainKey = DispatchSpecificKey<Bool>()

    func geocoder(rateLimit: Int = 100, offline: any GeocodingBackend = OfflineBackend()) -> CLGeocoder {
        var configuration = GeocodingService.Configuration()
        configuration.rateLimit = rateLimit
        configuration.offline = offline
        return CLGeocoder(service: GeocodingService(configuration: configuration))
    }

    /// Runs a completion-handler call and returns what the handler got and whether it ran on the main queue.
    func complete(
        _ start: (@escaping CLGeocodeCompletionHandler) -> Void
    ) async -> (placemarks: [CLPlacemark]?, error: CLError?, onMain: Bool) {
        DispatchQueue.main.setSpecific(key: Self.mainKey, value: true)
        return await withCheckedContinuation { continuation in
            start { placemarks, error in
                let onMain = DispatchQueue.getSpecific(key: Self.mainKey) == true
                continuation.resume(returning: (placemarks, error as? CLError, onMain))
            }
        }
    }

    @Test func reverseGivesEveryOfflineField() async throws {
        let placemark = try #require(try await geocoder().reverseGeocodeLocation(
            CLLocation(latitude: 41.8781, longitude: -87.6298), preferredLocale: Locale(identifier: "en_US")).first)
        #expect(placemark.locality == "Chicago")
        #expect(placemark.administrativeArea == "Illinois")
        #expect(placemark.subAdministrativeArea == "Cook County")
        #expect(placemark.isoCountryCode == "US")
        #expect(placemark.country == "United States")
        #expect(placemark.timeZone?.identifier == "America/Chicago")
        #expect(placemark.name == "Chicago")
        let region = try #require(placemark.region as? CLCircularRegion)
        #expect(region.identifier == "Chicago")
        #expect(region.radius > 5_000 && region.radius < 30_000)
        #expect(abs((placemark.location?.coordinate.latitude ?? 0) - 41.8781) < 1e-9)
    }

    @Test func preferredLocaleLocalizesCountry() async throws {
        let placemark = try #require(try await geocoder().reverseGeocodeLocation(
            CLLocation(latitude: 48.8566, longitude: 2.3522), preferredLocale: Locale(identifier: "de_DE")).first)
        #expect(placemark.country == "Frankreich")
    }

    @Test func completionHandlerRunsOnMainQueue() async throws {
        let geocoder = geocoder()
        let outcome = await complete { geocoder.geocodeAddressString("Springfield, Illinois", completionHandler: $0) }
        #expect(outcome.onMain)
        #expect(outcome.placemarks?.first?.administrativeArea == "Illinois")
        #expect(!geocoder.isGeocoding)
    }

    @Test func forwardAmbiguousGivesSeveralPlacemarks() async throws {
        let placemarks = try await geocoder().geocodeAddressString("Paris")
        #expect(placemarks.count > 1)
        #expect(placemarks.first?.isoCountryCode == "FR")
        let texas = try await geocoder().geocodeAddressString(
            "Paris", in: CLCircularRegion(center: CLLocationCoordinate2D(latitude: 33.66, longitude: -95.55),
                                          radius: 50_000, identifier: "near"))
        #expect(texas.first?.administrativeArea == "Texas")
    }

    @Test func coordinateTextIsReverseGeocoded() async throws {
        let placemark = try #require(try await geocoder().geocodeAddressString("48.85, 2.35").first)
        #expect(placemark.locality == "Paris")
        #expect(placemark.location?.coordinate.longitude == 2.35)
    }

    @Test func postalAddressAndDictionary() async throws {
        let address = CNMutablePostalAddress()
        address.city = "Springfield"
        address.state = "Illinois"
        address.country = "United States"
        #expect(try await geocoder().geocodePostalAddress(address).first?.subAdministrativeArea == "Sangamon County")
        let geocoder = geocoder()
        let outcome = await complete {
            geocoder.geocodeAddressDictionary(["City": "Paris", "State": "TX"], completionHandler: $0)
        }
        #expect(outcome.placemarks?.first?.administrativeArea == "Texas")
    }

    @Test func secondRequestWhileBusyIsCanceledAndFirstCompletes() async throws {
        let gate = GateBackend(answer: [GeocodedPlace(latitude: 1, longitude: 2)])
        let geocoder = geocoder(offline: gate)
        DispatchQueue.main.setSpecific(key: Self.mainKey, value: true)
        async let first = complete { geocoder.geocodeAddressString("One", completionHandler: $0) }
        while !geocoder.isGeocoding { await Task.yield() }
        let second = await complete { geocoder.geocodeAddressString("Two", completionHandler: $0) }
        #expect(second.error?.code == .geocodeCanceled)
        #expect(second.onMain)
        #expect(geocoder.isGeocoding)
        gate.release()
        let firstOutcome = await first
        #expect(firstOutcome.placemarks?.first?.location?.coordinate.latitude == 1)
        #expect(!geocoder.isGeocoding)
    }

    @Test func cancelGeocodeCompletesWithGeocodeCanceled() async throws {
        let geocoder = geocoder(offline: GateBackend(answer: []))
        async let outcome = complete { geocoder.reverseGeocodeLocation(CLLocation(latitude: 1, longitude: 1),
                                                                       completionHandler: $0) }
        while !geocoder.isGeocoding { await Task.yield() }
        geocoder.cancelGeocode()
        #expect(!geocoder.isGeocoding)
        let result = await outcome
        #expect(result.error?.code == .geocodeCanceled)
        #expect(result.placemarks == nil)
        geocoder.cancelGeocode()  // nothing in progress: no effect
    }

    @Test func cancellingTheTaskCancelsTheAsyncRequest() async throws {
        let geocoder = geocoder(offline: GateBackend(answer: []))
        let task = Task { try await geocoder.geocodeAddressString("Anything") }
        while !geocoder.isGeocoding { await Task.yield() }
        task.cancel()
        await #expect { try await task.value } throws: { ($0 as? CLError)?.code == .geocodeCanceled }
    }

    @Test func alreadyCancelledTaskGetsGeocodeCanceled() async throws {
        let geocoder = geocoder(offline: GateBackend(answer: []))
        let task = Task { () async throws -> [CLPlacemark] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await geocoder.geocodeAddressString("Anything")
        }
        await #expect { try await task.value } throws: { ($0 as? CLError)?.code == .geocodeCanceled }
        #expect(!geocoder.isGeocoding)
    }

    @Test(arguments: ["", "   \n\t", "Qwzxqv Nowhereville", String(repeating: "x", count: 100_000)])
    func badOrUnknownTextIsGeocodeFoundNoResult(text: String) async throws {
        await #expect { try await geocoder().geocodeAddressString(text) }
            throws: { ($0 as? CLError)?.code == .geocodeFoundNoResult }
    }

    @Test func invalidLocationAndOpenSeaAreGeocodeFoundNoResult() async throws {
        for location in [CLLocation(latitude: .nan, longitude: 0), CLLocation(latitude: 95, longitude: 0),
                         CLLocation(latitude: 0, longitude: -30)] {
            await #expect { try await geocoder().reverseGeocodeLocation(location) }
                throws: { ($0 as? CLError)?.code == .geocodeFoundNoResult }
        }
    }

    @Test func overTheRateLimitIsNetwork() async throws {
        let geocoder = geocoder(rateLimit: 1)
        _ = try await geocoder.geocodeAddressString("Oslo")
        await #expect { try await geocoder.geocodeAddressString("Bergen") }
            throws: { ($0 as? CLError)?.code == .network }
        _ = try await geocoder.geocodeAddressString("Oslo")  // cached: not counted
    }

    @Test func corruptGazetteerIsNetworkWithReason() async throws {
        let broken = OfflineBackend { () throws(GeocodingError) -> Gazetteer in
            throw GeocodingError(.resourceCorrupt, "gazetteer checksum mismatch: the file is damaged")
        }
        await #expect { try await geocoder(offline: broken).geocodeAddressString("Paris") } throws: { error in
            let error = error as NSError
            return error.code == CLError.network.rawValue && error.localizedDescription.contains("checksum")
        }
    }
}

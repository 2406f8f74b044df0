import Foundation
import CoreLocationGeocoding

extension CLGeocoder {

    static func request(text: String, region: CLRegion?) -> GeocodingService.Request {
        let query = (try? ForwardQuery(text: text)) ?? ForwardQuery(name: text.count > ForwardQuery.maximumLength
            ? text : "")
        var bias: SearchRegion?
        if let circle = region as? CLCircularRegion {
            bias = SearchRegion(latitude: circle.center.latitude, longitude: circle.center.longitude,
                                radius: circle.radius)
        }
        return .forward(query, region: bias)
    }

    static func request(_ address: CNPostalAddress) -> GeocodingService.Request {
        let city = address.city.isEmpty ? address.subLocality : address.city
        return request(city: city.isEmpty ? nil : city, state: address.state,
                       subAdministrativeArea: address.subAdministrativeArea,
                       country: address.country, countryCode: address.isoCountryCode)
    }

    static func request(
        city: String?, state: String?, subAdministrativeArea: String?, country: String?, countryCode: String?
    ) -> GeocodingService.Request {
        let qualifiers = [subAdministrativeArea, state, countryCode ?? country]
            .compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
        return .forward(ForwardQuery(name: city ?? "", qualifiers: city == nil ? [] : qualifiers), region: nil)
    }

    /// Wraps a completion handler so it runs on the main queue.
    static func onMainQueue(_ handler: @escaping CLGeocodeCompletionHandler)
        -> @Sendable (Result<[CLPlacemark], CLError>) -> Void
    {
        let box = CompletionBox(handler)
        return { result in
            DispatchQueue.main.async {
                switch result {
                case let .success(placemarks): box.call(placemarks, nil)
                case let .failure(error): box.call(nil, error)
                }
            }
        }
    }
}

/// Carries a completion handler to the main queue.
///
/// `@unchecked Sendable` is safe: the handler is called exactly once, on the main queue, and never
/// touched from anywhere else after being boxed.
final class CompletionBox: @unchecked Sendable {  // Sendable: safety argued in the comment above
    let call: CLGeocodeCompletionHandler
    init(_ call: @escaping CLGeocodeCompletionHandler) { self.call = call }
}

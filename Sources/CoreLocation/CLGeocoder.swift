import Foundation
import CoreLocationGeocoding
import Synchronization

public typealias CLGeocodeCompletionHandler = ([CLPlacemark]?, (any Error)?) -> Void

/// Converts between coordinates and place names: offline from the embedded gazetteer (GeoNames places,
/// Natural Earth borders), online from a Nominatim-compatible server when `CORELOCATION_GEOCODER_URL`
/// names one (the gazetteer is then the fallback).
///
/// As Apple's: completion handlers run on the main queue; one request at a time per geocoder;
/// `cancelGeocode()` completes the pending request with `CLError.geocodeCanceled`; no match is
/// `CLError.geocodeFoundNoResult`; exceeding the rate limit is `CLError.network`. Apple's documentation
/// only says not to start a second request while one runs; here the request in progress keeps going and
/// the new one completes at once with `CLError.geocodeCanceled` (nothing is silently dropped). Empty,
/// whitespace-only or over-long text and invalid coordinates give `geocodeFoundNoResult`; a missing or
/// damaged gazetteer gives `CLError.network` (the service cannot answer) with the reason in the
/// localized description.
///
/// `@unchecked Sendable` is safe: the only mutable state is `active`, behind a `Mutex`; `service` is an
/// immutable `Sendable` reference.
open class CLGeocoder: NSObject, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct Active {
        let id: UInt64
        var task: Task<Void, Never>?
        let deliver: @Sendable (Result<[CLPlacemark], CLError>) -> Void
    }

    private let active = Mutex<Active?>(nil)
    private static let counter = Atomic<UInt64>(0)
    let service: GeocodingService

    public override init() {
        self.service = .shared
        super.init()
    }

    /// A geocoder using a given service (tests, or an app with its own configuration).
    package init(service: GeocodingService) {
        self.service = service
        super.init()
    }

    open var isGeocoding: Bool { active.withLock { $0 != nil } }

    open func cancelGeocode() {
        guard let cancelled = active.withLock({ state -> Active? in
            defer { state = nil }
            return state
        }) else { return }
        cancelled.task?.cancel()
        cancelled.deliver(.failure(Self.error(.geocodeCanceled, "The geocoding request was cancelled.")))
    }

    // MARK: - Completion-handler forms

    open func reverseGeocodeLocation(_ location: CLLocation, completionHandler: @escaping CLGeocodeCompletionHandler) {
        reverseGeocodeLocation(location, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func reverseGeocodeLocation(
        _ location: CLLocation, preferredLocale locale: Locale?, completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        start(.reverse(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude),
              locale: locale, deliver: Self.onMainQueue(completionHandler))
    }

    /// Takes the AddressBook keys (`Street`, `City`, `State`, `ZIP`, `Country`, `CountryCode`) or the
    /// `CNPostalAddress` property names (`street`, `city`, `state`, `postalCode`, `country`, `ISOCountryCode`).
    open func geocodeAddressDictionary(
        _ addressDictionary: [AnyHashable: Any], completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        var values: [String: String] = [:]
        for (key, value) in addressDictionary {
            if let key = key as? String, let value = value as? String { values[key.lowercased()] = value }
        }
        let request = Self.request(
            city: values["city"] ?? values["street"], state: values["state"],
            subAdministrativeArea: values["subadministrativearea"],
            country: values["country"], countryCode: values["countrycode"] ?? values["isocountrycode"])
        start(request, locale: nil, deliver: Self.onMainQueue(completionHandler))
    }

    open func geocodeAddressString(_ addressString: String, completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodeAddressString(addressString, in: nil, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        geocodeAddressString(addressString, in: region, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?,
        completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        start(Self.request(text: addressString, region: region), locale: locale,
              deliver: Self.onMainQueue(completionHandler))
    }

    open func geocodePostalAddress(
        _ postalAddress: CNPostalAddress, completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        geocodePostalAddress(postalAddress, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func geocodePostalAddress(
        _ postalAddress: CNPostalAddress, preferredLocale locale: Locale?,
        completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        start(Self.request(postalAddress), locale: locale, deliver: Self.onMainQueue(completionHandler))
    }

    // MARK: - Async forms

    open func reverseGeocodeLocation(_ location: CLLocation) async throws -> [CLPlacemark] {
        try await reverseGeocodeLocation(location, preferredLocale: nil)
    }

    open func reverseGeocodeLocation(
        _ location: CLLocation, preferredLocale locale: Locale?
    ) async throws -> [CLPlacemark] {
        try await run(.reverse(latitude: location.coordinate.latitude, longitude: location.coordinate.longitude),
                      locale: locale)
    }

    open func geocodeAddressString(_ addressString: String) async throws -> [CLPlacemark] {
        try await geocodeAddressString(addressString, in: nil, preferredLocale: nil)
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?) async throws -> [CLPlacemark] {
        try await geocodeAddressString(addressString, in: region, preferredLocale: nil)
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?
    ) async throws -> [CLPlacemark] {
        try await run(Self.request(text: addressString, region: region), locale: locale)
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress) async throws -> [CLPlacemark] {
        try await geocodePostalAddress(postalAddress, preferredLocale: nil)
    }

    open func geocodePostalAddress(
        _ postalAddress: CNPostalAddress, preferredLocale locale: Locale?
    ) async throws -> [CLPlacemark] {
        try await run(Self.request(postalAddress), locale: locale)
    }

    /// Starts a request; `deliver` is called exactly once, from whatever thread finishes it.
    @discardableResult
    func start(
        _ request: GeocodingService.Request, locale: Locale?,
        deliver: @escaping @Sendable (Result<[CLPlacemark], CLError>) -> Void
    ) -> UInt64? {
        let id = Self.counter.add(1, ordering: .relaxed).newValue
        let started = active.withLock { state -> Bool in
            guard state == nil else { return false }
            state = Active(id: id, task: nil, deliver: deliver)
            return true
        }
        guard started else {
            let message = "Another geocoding request is in progress on this geocoder."
            deliver(.failure(Self.error(.geocodeCanceled, message)))
            return nil
        }
        let service = service
        let language = Self.language(of: locale)
        let task = Task.detached { [weak self] in
            let result: Result<[CLPlacemark], CLError>
            do throws(GeocodingError) {
                result = .success(try await service.run(request, language: language).map(CLPlacemark.init(place:)))
            } catch {
                result = .failure(Self.clError(error))
            }
            self?.finish(id, result)
        }
        active.withLock { state in
            if state?.id == id { state?.task = task }
        }
        return id
    }

    private func finish(_ id: UInt64, _ result: Result<[CLPlacemark], CLError>) {
        let finished = active.withLock { state -> Active? in
            guard let current = state, current.id == id else { return nil }
            state = nil
            return current
        }
        finished?.deliver(result)
    }

    func cancel(id: UInt64) {
        if active.withLock({ $0?.id == id }) { cancelGeocode() }
    }

    static func language(of locale: Locale?) -> String? {
        (locale ?? Locale.current).language.languageCode?.identifier
    }

    static func error(_ code: CLError.Code, _ message: String) -> CLError {
        CLError(code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    static func clError(_ error: GeocodingError) -> CLError {
        switch error.code {
        case .noResult, .invalidInput: return Self.error(.geocodeFoundNoResult, error.message)
        case .cancelled: return Self.error(.geocodeCanceled, error.message)
        default: return Self.error(.network, error.message)
        }
    }
}

import Foundation
import Synchronization

public typealias CLGeocodeCompletionHandler = ([CLPlacemark]?, (any Error)?) -> Void

/// Converts between coordinates and place names.
///
/// No geocoding backend ships yet (the offline gazetteer and the Nominatim backend come with the
/// geocoding work). Until then every request completes — on the main queue, as Apple's do — with
/// `CLError.network`, the code Apple's geocoder gives when its service cannot be reached. It never
/// answers with a made-up place.
open class CLGeocoder: NSObject, @unchecked Sendable {  // Sendable: safety argued in the comment above
    // `@unchecked Sendable` is safe: the only mutable state is `active`, behind a Mutex.
    private let active = Mutex(false)

    public override init() {
        super.init()
    }

    open var isGeocoding: Bool { active.withLock { $0 } }

    open func cancelGeocode() {}

    open func reverseGeocodeLocation(_ location: CLLocation, completionHandler: @escaping CLGeocodeCompletionHandler) {
        fail(completionHandler)
    }

    open func reverseGeocodeLocation(
        _ location: CLLocation, preferredLocale locale: Locale?, completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        fail(completionHandler)
    }

    open func geocodeAddressDictionary(
        _ addressDictionary: [AnyHashable: Any], completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        fail(completionHandler)
    }

    open func geocodeAddressString(_ addressString: String, completionHandler: @escaping CLGeocodeCompletionHandler) {
        fail(completionHandler)
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        fail(completionHandler)
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?,
        completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        fail(completionHandler)
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress, completionHandler: @escaping CLGeocodeCompletionHandler) {
        fail(completionHandler)
    }

    open func geocodePostalAddress(
        _ postalAddress: CNPostalAddress, preferredLocale locale: Locale?,
        completionHandler: @escaping CLGeocodeCompletionHandler
    ) {
        fail(completionHandler)
    }

    open func reverseGeocodeLocation(_ location: CLLocation) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func reverseGeocodeLocation(_ location: CLLocation, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func geocodeAddressString(_ addressString: String) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func geocodeAddressString(
        _ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?
    ) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        throw Self.unavailable
    }

    private static var unavailable: CLError {
        CLError(.network, userInfo: [NSLocalizedDescriptionKey: "No geocoding backend is available on this system yet."])
    }

    private func fail(_ completionHandler: @escaping CLGeocodeCompletionHandler) {
        let box = CompletionBox(completionHandler)
        DispatchQueue.main.async { box.call(nil, Self.unavailable) }
    }
}

/// Carries a completion handler to the main queue.
///
/// `@unchecked Sendable` is safe: the handler is called exactly once, on the main queue, and never
/// touched from anywhere else after being boxed.
private final class CompletionBox: @unchecked Sendable {  // Sendable: safety argued in the comment above
    let call: CLGeocodeCompletionHandler
    init(_ call: @escaping CLGeocodeCompletionHandler) { self.call = call }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An online backend speaking Nominatim's API (`/search` and `/reverse`, `format=jsonv2`,
/// `addressdetails=1`), as OpenStreetMap's server and self-hosted Nominatim/Photon-compatible servers do.
///
/// Follows Nominatim's usage policy: a User-Agent naming the software, and at most one request per
/// second by default — a request sooner than that is refused with `.throttled` (the service then
/// answers from the offline gazetteer) rather than queued. A timeout, a connection failure or an HTTP
/// status other than 200 is `.network`; a body that is not Nominatim JSON is `.badResponse`.
public struct NominatimBackend: GeocodingBackend {
    public static let urlEnvironmentKey = "CORELOCATION_GEOCODER_URL"
    public static let userAgent = "swift-corelocation/0.1 (CLGeocoder for Linux)"

    public let baseURL: URL
    public let timeout: TimeInterval
    private let spacing: RateLimiter
    private let session: URLSession

    /// - Parameters:
    ///   - timeout: seconds to wait for an answer (default 10; at least 1, because FoundationNetworking on
    ///     Linux truncates the interval to whole seconds and would time out at once below 1 s).
    ///   - minimumInterval: seconds between requests (default 1, Nominatim's policy).
    public init(baseURL: URL, timeout: TimeInterval = 10, minimumInterval: Double = 1,
                now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.baseURL = baseURL
        let timeout = timeout.isFinite ? max(1, timeout) : 10
        self.timeout = timeout
        self.spacing = RateLimiter(limit: minimumInterval > 0 ? 1 : Int.max, window: minimumInterval, now: now)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpAdditionalHeaders = ["User-Agent": Self.userAgent]
        self.session = URLSession(configuration: configuration)
    }

    public func reverse(latitude: Double, longitude: Double, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        let items = [URLQueryItem(name: "lat", value: String(latitude)),
                     URLQueryItem(name: "lon", value: String(longitude))]
        let data = try await fetch("reverse", items, language: language)
        if (try? JSONDecoder().decode(NominatimError.self, from: data)) != nil {
            return []  // nothing there (at sea): the offline gazetteer is asked next
        }
        do {
            return [try JSONDecoder().decode(NominatimPlace.self, from: data).geocodedPlace()]
        } catch {
            throw GeocodingError(.badResponse, "the geocoding server's reverse answer is not Nominatim JSON")
        }
    }

    public func forward(_ query: ForwardQuery, region: SearchRegion?, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        var items = [URLQueryItem(name: "q", value: ([query.name] + query.qualifiers).joined(separator: ", ")),
                     URLQueryItem(name: "limit", value: "10")]
        if let region {
            let dLat = region.radius / 111_195
            let dLon = dLat / max(0.01, cos(region.latitude * .pi / 180))
            let box = [region.longitude - dLon, region.latitude + dLat, region.longitude + dLon, region.latitude - dLat]
            items.append(URLQueryItem(name: "viewbox", value: box.map { String($0) }.joined(separator: ",")))
        }
        let data = try await fetch("search", items, language: language)
        do {
            return try JSONDecoder().decode([NominatimPlace].self, from: data).map { try $0.geocodedPlace() }
        } catch {
            throw GeocodingError(.badResponse, "the geocoding server's search answer is not Nominatim JSON")
        }
    }

    private func fetch(_ endpoint: String, _ items: [URLQueryItem], language: String?) async throws(GeocodingError)
        -> Data
    {
        guard spacing.admit() else {
            throw GeocodingError(.throttled, "Nominatim allows one request per \(spacing.window) s")
        }
        var components = URLComponents(url: baseURL.appendingPathComponent(endpoint), resolvingAgainstBaseURL: false)
        components?.queryItems = items + [URLQueryItem(name: "format", value: "jsonv2"),
                                          URLQueryItem(name: "addressdetails", value: "1")]
            + (language.map { [URLQueryItem(name: "accept-language", value: $0)] } ?? [])
        guard let url = components?.url else {
            throw GeocodingError(.invalidInput, "cannot build a request URL from \(baseURL)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw GeocodingError(.cancelled, "the request was cancelled") }
            throw GeocodingError(.network, "the geocoding server could not be reached: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw GeocodingError(.network, "the geocoding server did not answer over HTTP")
        }
        guard http.statusCode == 200 else {
            throw GeocodingError(.network, "the geocoding server answered HTTP \(http.statusCode)")
        }
        return data
    }
}

/// Nominatim's `{"error": "Unable to geocode"}` answer to a reverse query over the sea.
struct NominatimError: Decodable {
    let error: String
}

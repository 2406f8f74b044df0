import Foundation
import Logging
import Synchronization

/// Answers geocoding requests for every `CLGeocoder` in the process: a client-side rate limit, a
/// result cache, the online backend when one is configured, and the offline gazetteer as fallback.
public final class GeocodingService: Sendable {
    public struct Configuration: Sendable {
        /// Requests admitted per `rateWindow` seconds (cache hits do not count). Default 50 per 60 s,
        /// the order of Apple's per-app limit as developers report it (Apple publishes no number); a
        /// refused request fails with `.throttled` (the façade's `CLError.network`, as Apple's throttling).
        public var rateLimit = 50
        public var rateWindow: Double = 60
        /// Results kept (most recently used); 0 disables the cache.
        public var cacheCapacity = 256
        /// An online Nominatim-compatible server, tried first; nil for offline only.
        public var online: (any GeocodingBackend)?
        /// The offline backend; also the fallback when the online one fails or finds nothing.
        public var offline: any GeocodingBackend = OfflineBackend()
        /// Monotonic seconds, injected so tests can step the rate limit.
        public var now: @Sendable () -> Double = RateLimiter.monotonicSeconds

        public init() {}

        /// The default configuration plus `CORELOCATION_GEOCODER_URL` (a Nominatim base URL) and
        /// `CORELOCATION_GEOCODER_RATE_LIMIT` ("N/SECONDS", e.g. "50/60") from the environment.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Configuration
        {
            var configuration = Configuration()
            if let text = environment[NominatimBackend.urlEnvironmentKey], let url = URL(string: text),
               url.scheme == "http" || url.scheme == "https" {
                configuration.online = NominatimBackend(baseURL: url)
            }
            if let text = environment["CORELOCATION_GEOCODER_RATE_LIMIT"] {
                let parts = text.split(separator: "/")
                if parts.count == 2, let limit = Int(parts[0]), let window = Double(parts[1]), limit >= 0,
                   window.isFinite, window >= 0 {
                    configuration.rateLimit = limit
                    configuration.rateWindow = window
                }
            }
            return configuration
        }
    }

    public enum Request: Sendable, Hashable {
        case reverse(latitude: Double, longitude: Double)
        case forward(ForwardQuery, region: SearchRegion?)
    }

    private let configuration: Configuration
    private let limiter: RateLimiter
    private let cache: Mutex<Cache>
    private let logger: Logger

    public init(configuration: Configuration = .fromEnvironment(), logger: Logger = Logger(label: "Geocoding")) {
        self.configuration = configuration
        self.limiter = RateLimiter(limit: configuration.rateLimit, window: configuration.rateWindow,
                                   now: configuration.now)
        self.cache = Mutex(Cache(capacity: configuration.cacheCapacity))
        self.logger = logger
    }

    /// The process-wide service, configured from the environment.
    public static let shared = GeocodingService()

    /// Runs a request. Throws `GeocodingError`: `.invalidInput`, `.noResult`, `.throttled`, `.cancelled`,
    /// `.network`/`.badResponse` (online only, when the offline fallback also failed), `.resourceCorrupt`
    /// or `.resourceUnavailable` (the gazetteer).
    public func run(_ request: Request, language: String?) async throws(GeocodingError) -> [GeocodedPlace] {
        try Self.validate(request)
        let key = CacheKey(request: request, language: language)
        if let cached = cache.withLock({ $0.get(key) }) { return cached }
        guard limiter.admit() else {
            throw GeocodingError(.throttled, "more than \(limiter.limit) geocoding requests in \(limiter.window) s")
        }
        var places: [GeocodedPlace] = []
        if let online = configuration.online {
            do throws(GeocodingError) {
                places = try await Self.perform(request, on: online, language: language)
                places = await addTimeZones(places, language: language)
            } catch {
                logger.info("online geocoder failed, using the offline gazetteer", metadata: ["error": "\(error)"])
            }
        }
        if Task.isCancelled { throw GeocodingError(.cancelled, "the request was cancelled") }
        if places.isEmpty {
            places = try await Self.perform(request, on: configuration.offline, language: language)
        }
        if Task.isCancelled { throw GeocodingError(.cancelled, "the request was cancelled") }
        guard !places.isEmpty else { throw GeocodingError(.noResult, "no place matches the request") }
        cache.withLock { $0.put(key, places) }
        return places
    }

    /// Nominatim gives no time zone: take the offline gazetteer's for each place's coordinate. A place
    /// the gazetteer cannot answer for (at sea, or the resource is damaged) keeps none.
    private func addTimeZones(_ places: [GeocodedPlace], language: String?) async -> [GeocodedPlace] {
        var result = places
        for index in result.indices where result[index].timeZone == nil {
            let local = try? await configuration.offline.reverse(
                latitude: result[index].latitude, longitude: result[index].longitude, language: language)
            result[index].timeZone = local?.first?.timeZone
        }
        return result
    }

    private static func perform(_ request: Request, on backend: any GeocodingBackend, language: String?)
        async throws(GeocodingError) -> [GeocodedPlace]
    {
        switch request {
        case let .reverse(latitude, longitude):
            return try await backend.reverse(latitude: latitude, longitude: longitude, language: language)
        case let .forward(query, region):
            return try await backend.forward(query, region: region, language: language)
        }
    }

    private static func validate(_ request: Request) throws(GeocodingError) {
        switch request {
        case let .reverse(latitude, longitude):
            guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
                throw GeocodingError(.invalidInput, "the coordinate is not a valid latitude/longitude")
            }
        case let .forward(query, _):
            let text = ([query.name] + query.qualifiers).joined(separator: ", ")
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw GeocodingError(.invalidInput, "the address is empty")
            }
            guard text.count <= ForwardQuery.maximumLength else {
                throw GeocodingError(
                    .invalidInput, "the address is longer than \(ForwardQuery.maximumLength) characters")
            }
        }
    }
}

struct CacheKey: Hashable, Sendable {
    let request: GeocodingService.Request
    let language: String?
}

/// A small least-recently-used cache.
struct Cache: Sendable {
    let capacity: Int
    private var values: [CacheKey: [GeocodedPlace]] = [:]
    private var order: [CacheKey] = []

    init(capacity: Int) { self.capacity = capacity }

    mutating func get(_ key: CacheKey) -> [GeocodedPlace]? {
        guard let value = values[key] else { return nil }
        order.removeAll { $0 == key }
        order.append(key)
        return value
    }

    mutating func put(_ key: CacheKey, _ value: [GeocodedPlace]) {
        guard capacity > 0 else { return }
        if values.updateValue(value, forKey: key) == nil {
            order.append(key)
            if order.count > capacity { values[order.removeFirst()] = nil }
        }
    }
}

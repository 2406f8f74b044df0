import CoreLocationSources
import Foundation
import Logging
import Synchronization

/// Asks an Ichnaea-compatible service where a Wi-Fi scan was made — only with the user's stored consent, at
/// most once per `minimumInterval`, never for a scan the cache can answer (docs/decisions/0025).
public final class WiFiGeolocator: Sendable {
    public struct Configuration: Sendable {
        /// Between two requests, seconds (beaconDB asks clients to be gentle).
        public var minimumInterval: Double = 60
        /// How long a reply answers similar scans, seconds.
        public var cacheLifetime: Double = 600
        /// Held back after a 429, seconds (or the service's Retry-After when longer).
        public var rateLimitedBackoff: Double = 300
        /// Held back after a 5xx or a failed exchange, seconds.
        public var failureBackoff: Double = 120
        public var timeout: Duration = .seconds(10)
        public var userAgent: String = WiFiGeolocator.userAgent
        public init() {}
    }

    public static let userAgent = "swift-corelocation/1.0 (+https://github.com/swift-corelocation/swift-corelocation)"

    private struct CacheEntry {
        var bssids: Set<String>
        var cells: Set<CellIdentity>
        var reply: GeolocateReply
        var at: Double
    }

    private struct State {
        var cache: [CacheEntry] = []
        var nextAllowed: Double = -.infinity
        var requests = 0
    }

    private let configuration: Configuration
    private let settings: NetworkSettingsStore
    private let transport: any GeolocateTransport
    private let scheduler: any Scheduler
    private let logger: Logger
    private let state = Mutex(State())

    public init(
        configuration: Configuration = Configuration(), settings: NetworkSettingsStore,
        transport: any GeolocateTransport, scheduler: any Scheduler,
        logger: Logger = Logger(label: "corelocation.wifi")
    ) {
        self.configuration = configuration
        self.settings = settings
        self.transport = transport
        self.scheduler = scheduler
        self.logger = logger
    }

    /// Requests sent so far (for `locationctl sources`).
    public var requestCount: Int { state.withLock { $0.requests } }

    /// Whether two scans are "the same place": at least half of the smaller one's access points in common, and
    /// at least two.
    static func similar(_ a: Set<String>, _ b: Set<String>) -> Bool {
        let common = a.intersection(b).count
        return common >= WiFiAccessPointFilter.minimumCount && common * 2 >= min(a.count, b.count)
    }

    /// Whether a cached answer fits: the same place by Wi-Fi, or — when the query has too few access points to
    /// say — the same serving cell.
    private static func answers(_ entry: CacheEntry, bssids: Set<String>, cells: Set<CellIdentity>) -> Bool {
        if similar(entry.bssids, bssids) { return true }
        return bssids.count < WiFiAccessPointFilter.minimumCount && !cells.isEmpty && !entry.cells.isDisjoint(with: cells)
    }

    /// Where the scan was made, with the modem's serving cell(s) in the same request (Ichnaea's `cellTowers`).
    /// Cells alone are enough to ask; Wi-Fi alone needs two usable access points.
    ///
    /// - Throws: `.notConsented` (nothing sent), `.tooFewAccessPoints`, `.rateLimited`, `.notFound` (the service
    ///   does not know these access points), `.serviceFailed`, `.invalidReply`.
    public func locate(_ scan: [WiFiAccessPoint], cells: [CellIdentity] = []) async throws -> GeolocateReply {
        let stored = settings.load()
        guard stored.wifiPositioning else {
            throw NetworkSourceError(.notConsented, "Wi-Fi positioning is off (turn it on: locationctl network wifi on)")
        }
        guard let url = URL(string: stored.effectiveGeolocateURL), url.scheme == "https" || url.scheme == "http" else {
            throw NetworkSourceError(.serviceFailed, "\(stored.effectiveGeolocateURL) is not an http(s) URL")
        }
        var usable = WiFiAccessPointFilter.usable(scan)
        if usable.count < WiFiAccessPointFilter.minimumCount, !cells.isEmpty { usable = [] }
        guard usable.count >= WiFiAccessPointFilter.minimumCount || !cells.isEmpty else {
            throw NetworkSourceError(
                .tooFewAccessPoints, "\(usable.count) usable access point(s) of \(scan.count); at least 2 are needed")
        }
        let bssids = Set(usable.map(\.bssid))
        let cellSet = Set(cells)
        let now = scheduler.now
        let decision = state.withLock { state -> Result<GeolocateReply?, NetworkSourceError> in
            state.cache.removeAll { now - $0.at > configuration.cacheLifetime }
            if let hit = state.cache.last(where: { Self.answers($0, bssids: bssids, cells: cellSet) }) {
                return .success(hit.reply)
            }
            guard now >= state.nextAllowed else {
                let wait = Int((state.nextAllowed - now).rounded(.up))
                return .failure(NetworkSourceError(.rateLimited, "the next geolocate request is allowed in \(wait) s"))
            }
            state.nextAllowed = now + configuration.minimumInterval
            state.requests += 1
            return .success(nil)
        }
        if let cached = try decision.get() { return cached }
        let body = try GeolocateRequest(accessPoints: usable, cells: cells).encoded()
        let status: Int
        let reply: Data
        do {
            (status, reply) = try await transport.post(
                url: url, body: body, userAgent: configuration.userAgent, timeout: configuration.timeout)
        } catch {
            backOff(configuration.failureBackoff)
            throw NetworkSourceError(.serviceFailed, "\(url.host ?? "the service"): \(error)")
        }
        switch status {
        case 200:
            let answer = try GeolocateReply.decode(reply)
            state.withLock { $0.cache.append(CacheEntry(bssids: bssids, cells: cellSet, reply: answer, at: now)) }
            logger.debug("Wi-Fi location", metadata: ["latitude": "\(answer.location.lat)",
                "longitude": "\(answer.location.lng)", "accuracy": "\(answer.accuracy)"])
            return answer
        case 404:
            throw NetworkSourceError(
                .notFound, "the service does not know these \(usable.count) access points and \(cells.count) cell(s)")
        case 429:
            backOff(configuration.rateLimitedBackoff)
            throw NetworkSourceError(.rateLimited, "the service says: too many requests (429)")
        case 500...599:
            backOff(configuration.failureBackoff)
            throw NetworkSourceError(.serviceFailed, "the service failed (\(status))")
        default:
            throw NetworkSourceError(.serviceFailed, "the service refused the request (\(status))")
        }
    }

    private func backOff(_ seconds: Double) {
        let until = scheduler.now + seconds
        state.withLock { $0.nextAllowed = max($0.nextAllowed, until) }
    }
}

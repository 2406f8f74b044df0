import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// Offline IP geolocation as a location source: the chosen address (`IPAddressChoice`) looked up in a MaxMind
/// DB file. It reports at start and again every `refreshInterval` (the address may change), each report a fix
/// stamped now, or `unavailable` saying why not (no database, private address, unknown address…).
public final class IPLocationSource: LocationSource {
    public struct Configuration: Sendable, Hashable {
        /// The `.mmdb` file (`scripts/fetch-ip-database.sh` installs DB-IP City Lite).
        public var databasePath: String
        /// The address to look up; nil: the machine's global address.
        public var address: IPAddress?
        public var refreshInterval: Double

        public init(databasePath: String, address: IPAddress? = nil, refreshInterval: Double = 300) {
            self.databasePath = databasePath
            self.address = address
            self.refreshInterval = refreshInterval
        }

        /// Where the database is looked for when none is configured: `$CORELOCATION_IP_DATABASE`, else the
        /// first that exists of `$XDG_DATA_HOME/corelocation/ip-city.mmdb` (`~/.local/share/…`),
        /// `/var/lib/corelocation/ip-city.mmdb` (both where `scripts/fetch-ip-database.sh` installs),
        /// `/usr/share/GeoIP/GeoLite2-City.mmdb` (MaxMind's geoipupdate), else the system one, reported missing.
        public static func defaultDatabasePath(environment: [String: String]) -> String {
            if let path = environment["CORELOCATION_IP_DATABASE"], !path.isEmpty { return path }
            var candidates = ["/var/lib/corelocation/ip-city.mmdb", "/usr/share/GeoIP/GeoLite2-City.mmdb"]
            let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? environment["HOME"].map { $0 + "/.local/share" }
            if let data, getuid() != 0 { candidates.insert(data + "/corelocation/ip-city.mmdb", at: 0) }
            return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
        }
    }

    /// kind "ip"; accuracy a city's (15 km), power almost nothing (a file look-up every few minutes).
    public let descriptor: SourceDescriptor
    private let configuration: Configuration
    private let scheduler: any Scheduler
    private let logger: Logger
    private let interfaces: @Sendable () -> [IPAddress]

    private struct State {
        var timer: (any ScheduledWork)?
        var database: MaxMindDatabase?
    }

    private let state = SourceRun(State())

    public init(
        id: SourceID = SourceID("ip"), configuration: Configuration, scheduler: any Scheduler,
        logger: Logger = Logger(label: "corelocation.ip"),
        interfaces: @escaping @Sendable () -> [IPAddress] = IPAddressChoice.interfaceAddresses
    ) {
        descriptor = SourceDescriptor(
            id: id, kind: "ip", expectedAccuracy: MaxMindDatabase.defaultCityAccuracy, powerCost: 1, isSimulated: false)
        self.configuration = configuration
        self.scheduler = scheduler
        self.logger = logger
        self.interfaces = interfaces
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        report(state.start(handler))
    }

    public func stop() {
        let timer = state.stop { state in
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// One look-up now, as `start` makes (also what `locationctl sources` shows).
    public func locate() throws -> IPLocation {
        let database = try openDatabase()
        let address = try IPAddressChoice.choose(configured: configuration.address, interfaces: interfaces())
        guard let location = try database.lookup(address) else {
            throw NetworkSourceError(.notFound, "\(configuration.databasePath) does not know \(address)")
        }
        logger.debug(
            "IP location", metadata: ["address": "\(address)", "latitude": "\(location.latitude)",
                "longitude": "\(location.longitude)"])
        return location
    }

    private func openDatabase() throws -> MaxMindDatabase {
        if let database = state.withLock({ $0.database }) { return database }
        let database = try MaxMindDatabase(path: configuration.databasePath)
        state.withLock { $0.database = database }
        return database
    }

    private func report(_ generation: Int) {
        let event: SourceEvent
        do {
            let location = try locate()
            event = .fix(
                Fix(
                    latitude: location.latitude, longitude: location.longitude,
                    horizontalAccuracy: location.horizontalAccuracy, timestamp: scheduler.wallNow))
        } catch {
            logger.info("IP location unavailable", metadata: ["reason": "\(error)"])
            event = .unavailable(reason: "\(error)")
        }
        guard state.emit(event, generation) else { return }
        let timer = scheduler.schedule(at: scheduler.now + configuration.refreshInterval) { [weak self] in
            self?.report(generation)
        }
        let stale = state.withLock { state -> (any ScheduledWork)? in
            guard state.isCurrent(generation) else { return timer }
            state.timer = timer
            return nil
        }
        stale?.cancel()
    }
}

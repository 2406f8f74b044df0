import Foundation

/// A MaxMind DB file (`.mmdb`: GeoLite2/GeoIP2 City, DB-IP City Lite…), read natively (docs/decisions/0060).
///
/// The file is memory-mapped once (`MaxMindStorage`); look-ups only read the mapping, so they are thread-safe, and
/// they allocate nothing but the strings they return. Every offset, pointer and length read from the file is
/// checked before it is used: a damaged or hostile file gives a `NetworkSourceError` (`.databaseInvalid` at open,
/// `.lookupFailed` in a look-up), never a crash, a hang or a large allocation.
public final class MaxMindDatabase: Sendable {
    /// Accuracy when the database has no radius: a city-level answer (GeoClue's GCLUE_LOCATION_ACCURACY_CITY).
    public static let defaultCityAccuracy: Double = 15_000
    /// Accuracy when the database has no radius and no city (GeoClue's GCLUE_LOCATION_ACCURACY_COUNTRY).
    public static let defaultCountryAccuracy: Double = 300_000
    /// Work allowed for one `lookup` (fields decoded, skipped ones included): the specification's recommended value
    /// limit. The largest real records take a few hundred.
    static let lookupBudget = 1 << 16

    public let path: String
    public let metadata: MaxMindMetadata
    /// The database type from its metadata (`GeoIP2-City`, `DBIP-City-Lite`…).
    public var databaseType: String { metadata.databaseType }
    /// When the database was built.
    public var buildDate: Date { Date(timeIntervalSince1970: TimeInterval(metadata.buildEpoch)) }

    private let storage: MaxMindStorage
    // Both are read-only views of `storage`'s bytes (raw pointers, so not Sendable by type).
    nonisolated(unsafe) private let tree: MaxMindSearchTree  // safe: into `storage`, kept alive here, never written
    nonisolated(unsafe) private let data: MaxMindSection  // safe: into `storage`, kept alive here, never written

    /// Opens the file at `path`.
    ///
    /// - Throws: `.databaseMissing` when there is no file there (the message says how to install one),
    ///   `.databaseInvalid` when it is not a MaxMind DB (no metadata, metadata of the wrong shape, a search tree
    ///   larger than the file…).
    public convenience init(path: String) throws {
        try self.init(storage: MaxMindStorage(path: path), path: path)
    }

    /// A database from bytes in memory (copied): the fuzz target's way in, and a test's.
    public convenience init(bytes: some Collection<UInt8>, path: String = "<memory>") throws {
        let copy = Array(bytes)
        let storage = copy.withUnsafeBytes { MaxMindStorage(copying: $0) }
        try self.init(storage: storage, path: path)
    }

    private init(storage: MaxMindStorage, path: String) throws {
        let file = storage.bytes
        do {
            let (markerStart, metadataSection) = try MaxMindMetadata.section(of: file)
            let metadata = try MaxMindMetadata(decoding: metadataSection)
            let treeSize = metadata.searchTreeSize
            // The data section runs from after the tree and its 16-byte separator to the metadata marker.
            guard treeSize <= markerStart - 16 else {
                throw MaxMindFormatError(
                    "\(metadata.nodeCount) nodes of \(metadata.recordSize) bits do not fit before the metadata")
            }
            self.metadata = metadata
            tree = MaxMindSearchTree(
                nodes: UnsafeRawBufferPointer(rebasing: file[0..<treeSize]), nodeCount: Int(metadata.nodeCount),
                recordSize: Int(metadata.recordSize), ipVersion: Int(metadata.ipVersion))
            data = MaxMindSection(bytes: UnsafeRawBufferPointer(rebasing: file[(treeSize + 16)..<markerStart]))
        } catch {
            throw NetworkSourceError(.databaseInvalid, "\(path): not a MaxMind DB: \(error)")
        }
        self.storage = storage
        self.path = path
    }

    /// Where the address's data is in the data section, and the prefix length the tree gives it: nil data when the
    /// database has no entry (or is IPv4-only and the address IPv6).
    private func entry(_ address: IPAddress) throws -> (offset: Int?, prefix: Int) {
        if address.family == .v6 && metadata.ipVersion == 4 { return (nil, 0) }
        do {
            let (record, prefix) = try tree.find(address, dataSize: data.count)
            guard case .data(let offset) = record else { return (nil, prefix) }
            return (offset, prefix)
        } catch {
            throw NetworkSourceError(.lookupFailed, "\(address): \(path) is damaged: \(error)")
        }
    }

    /// What the database says about `address`: nil when it has no entry for it.
    ///
    /// Reads `location.latitude`, `location.longitude`, `location.accuracy_radius`, `city.names.en` and
    /// `country.iso_code` as libmaxminddb's `MMDB_aget_value` reads a path: a key that is absent, or a step into
    /// something that is not a map, is "no value"; damage on the way is an error.
    ///
    /// - Throws: `.lookupFailed` when the database is damaged on the way to the address; `.noCoordinates` when
    ///   the entry has no latitude/longitude (a country database).
    public func lookup(_ address: IPAddress) throws -> IPLocation? {
        guard let offset = try entry(address).offset else { return nil }
        let data = self.data
        var budget = Self.lookupBudget
        do {
            let root = try data.followed(at: offset)
            let location = try data.member("location", of: root, budget: &budget)
            guard let location,
                let latitude = try data.member("latitude", of: location, budget: &budget).flatMap(data.double),
                let longitude = try data.member("longitude", of: location, budget: &budget).flatMap(data.double),
                latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
            else {
                throw NetworkSourceError(.noCoordinates, "\(address): the database has no coordinates for it")
            }
            let city = try data.member("city", of: root, budget: &budget)
                .flatMap { try data.member("names", of: $0, budget: &budget) }
                .flatMap { try data.member("en", of: $0, budget: &budget) }
                .flatMap(data.string)
            let country = try data.member("country", of: root, budget: &budget)
                .flatMap { try data.member("iso_code", of: $0, budget: &budget) }
                .flatMap(data.string)
            let radius = try data.member("accuracy_radius", of: location, budget: &budget).flatMap(data.uint16)
            let accuracy: Double
            let fromDatabase: Bool
            if let radius, radius > 0 {
                accuracy = Double(radius) * 1000
                fromDatabase = true
            } else {
                accuracy = city == nil ? Self.defaultCountryAccuracy : Self.defaultCityAccuracy
                fromDatabase = false
            }
            return IPLocation(
                latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy,
                accuracyFromDatabase: fromDatabase, city: city, countryCode: country)
        } catch let error as MaxMindFormatError {
            throw NetworkSourceError(.lookupFailed, "\(address): \(path) is damaged: \(error)")
        }
    }

    /// The whole record for `address`, decoded within the specification's resource limits, and the prefix length
    /// of the network it belongs to (for an IPv4 address in an IPv6 database, counted in the IPv6 tree).
    ///
    /// - Throws: `.lookupFailed` when the record is damaged or beyond the limits.
    public func record(for address: IPAddress) throws -> (value: MaxMindValue?, prefixLength: Int) {
        let (offset, prefix) = try entry(address)
        guard let offset else { return (nil, prefix) }
        do {
            return (try data.value(at: offset), prefix)
        } catch {
            throw NetworkSourceError(.lookupFailed, "\(address): \(path) is damaged: \(error)")
        }
    }
}

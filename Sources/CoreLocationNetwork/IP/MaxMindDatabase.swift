import CCoreLocationMaxMindDB
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A MaxMind DB file (`.mmdb`: GeoLite2/GeoIP2 City, DB-IP City Lite…) read through libmaxminddb.
///
/// The file is memory-mapped once; look-ups are thread-safe (libmaxminddb only reads the map) and allocate
/// only for the strings they return. Values are read with `MMDB_aget_value` (the variadic `MMDB_get_value` is
/// not available to Swift) through look-up paths built once, at open.
public final class MaxMindDatabase: Sendable {
    /// Accuracy when the database has no radius: a city-level answer (GeoClue's GCLUE_LOCATION_ACCURACY_CITY).
    public static let defaultCityAccuracy: Double = 15_000
    /// Accuracy when the database has no radius and no city (GeoClue's GCLUE_LOCATION_ACCURACY_COUNTRY).
    public static let defaultCountryAccuracy: Double = 300_000

    // The MMDB_s and the C path arrays: written only in init, read-only afterwards (libmaxminddb's look-ups are
    // documented thread-safe on a shared MMDB_s), freed in deinit when no look-up can run.
    nonisolated(unsafe) private let mmdb: UnsafeMutablePointer<MMDB_s>  // safe: set in init, read-only after
    nonisolated(unsafe) private let paths: LookupPaths  // safe: set in init, read-only after
    public let path: String
    /// The database type from its metadata (`GeoIP2-City`, `DBIP-City-Lite`…).
    public let databaseType: String
    /// When the database was built.
    public let buildDate: Date

    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw NetworkSourceError(.databaseMissing, "\(path): no such IP database")
        }
        let mmdb = UnsafeMutablePointer<MMDB_s>.allocate(capacity: 1)
        mmdb.initialize(to: MMDB_s())
        let status = MMDB_open(path, UInt32(MMDB_MODE_MMAP), mmdb)
        guard status == MMDB_SUCCESS else {
            mmdb.deallocate()
            let reason = String(cString: MMDB_strerror(status))
            let code: NetworkSourceError.Code = status == MMDB_FILE_OPEN_ERROR ? .databaseMissing : .databaseInvalid
            throw NetworkSourceError(code, "\(path): \(reason)")
        }
        self.mmdb = mmdb
        self.path = path
        databaseType = mmdb.pointee.metadata.database_type.map { String(cString: $0) } ?? "?"
        buildDate = Date(timeIntervalSince1970: TimeInterval(mmdb.pointee.metadata.build_epoch))
        paths = LookupPaths()
    }

    deinit {
        MMDB_close(mmdb)
        mmdb.deallocate()
        paths.free()
    }

    /// What the database says about `address`: nil when it has no entry for it.
    ///
    /// - Throws: `.lookupFailed` when the database is damaged on the way to the address; `.noCoordinates` when
    ///   the entry has no latitude/longitude (a country database).
    public func lookup(_ address: IPAddress) throws -> IPLocation? {
        var mmdbError: Int32 = 0
        var result = withSockaddr(address) { MMDB_lookup_sockaddr(mmdb, $0, &mmdbError) }
        // An IPv6 address in an IPv4-only database: the database does not know it.
        if mmdbError == MMDB_IPV6_LOOKUP_IN_IPV4_DATABASE_ERROR { return nil }
        guard mmdbError == MMDB_SUCCESS else {
            throw NetworkSourceError(.lookupFailed, "\(address): \(String(cString: MMDB_strerror(mmdbError)))")
        }
        guard result.found_entry else { return nil }
        guard let latitude = try value(&result.entry, paths.latitude)?.double_value,
            let longitude = try value(&result.entry, paths.longitude)?.double_value,
            latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
        else {
            throw NetworkSourceError(.noCoordinates, "\(address): the database has no coordinates for it")
        }
        let city = try value(&result.entry, paths.city).flatMap { string($0) }
        let country = try value(&result.entry, paths.country).flatMap { string($0) }
        let radius = try value(&result.entry, paths.radius)
        let accuracy: Double
        let fromDatabase: Bool
        if let radius, radius.type == MMDB_DATA_TYPE_UINT16, radius.uint16 > 0 {
            accuracy = Double(radius.uint16) * 1000
            fromDatabase = true
        } else {
            accuracy = city == nil ? Self.defaultCountryAccuracy : Self.defaultCityAccuracy
            fromDatabase = false
        }
        return IPLocation(
            latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, accuracyFromDatabase: fromDatabase,
            city: city, countryCode: country)
    }

    private func value(
        _ entry: inout MMDB_entry_s, _ path: UnsafeMutablePointer<UnsafePointer<CChar>?>
    ) throws -> MMDB_entry_data_s? {
        var data = MMDB_entry_data_s()
        let status = MMDB_aget_value(&entry, &data, path)
        if status == MMDB_LOOKUP_PATH_DOES_NOT_MATCH_DATA_ERROR { return nil }
        guard status == MMDB_SUCCESS else {
            throw NetworkSourceError(.lookupFailed, "\(self.path): \(String(cString: MMDB_strerror(status)))")
        }
        guard data.has_data else { return nil }
        if path == paths.latitude || path == paths.longitude, data.type != MMDB_DATA_TYPE_DOUBLE { return nil }
        return data
    }

    private func string(_ data: MMDB_entry_data_s) -> String? {
        guard data.type == MMDB_DATA_TYPE_UTF8_STRING, let pointer = data.utf8_string else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(data.data_size))
        return String(decoding: bytes, as: UTF8.self)
    }

    private func withSockaddr<T>(_ address: IPAddress, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
        switch address.family {
        case .v4:
            var storage = sockaddr_in()
            storage.sin_family = sa_family_t(AF_INET)
            withUnsafeMutableBytes(of: &storage.sin_addr) { $0.copyBytes(from: address.bytes) }
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .v6:
            var storage = sockaddr_in6()
            storage.sin6_family = sa_family_t(AF_INET6)
            withUnsafeMutableBytes(of: &storage.sin6_addr) { $0.copyBytes(from: address.bytes) }
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}

/// NULL-terminated arrays of C strings for `MMDB_aget_value`, allocated once per database.
private struct LookupPaths {
    let latitude = LookupPaths.make(["location", "latitude"])
    let longitude = LookupPaths.make(["location", "longitude"])
    let radius = LookupPaths.make(["location", "accuracy_radius"])
    let city = LookupPaths.make(["city", "names", "en"])
    let country = LookupPaths.make(["country", "iso_code"])

    static func make(_ keys: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: keys.count + 1)
        for (index, key) in keys.enumerated() { array[index] = UnsafePointer(strdup(key)) }
        array[keys.count] = nil
        return array
    }

    func free() {
        for array in [latitude, longitude, radius, city, country] {
            var index = 0
            while let key = array[index] {
                Glibc.free(UnsafeMutableRawPointer(mutating: key))
                index += 1
            }
            array.deallocate()
        }
    }
}

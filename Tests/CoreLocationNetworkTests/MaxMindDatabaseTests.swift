import CoreLocationNetwork
import Foundation
import Testing

/// Look-ups in MaxMind's City test database; the expected values are what `mmdblookup` (libmaxminddb's own
/// tool, Debian mmdb-bin) prints for the same addresses.
@Suite struct MaxMindDatabaseTests {
    struct Case: Sendable, CustomStringConvertible {
        var address: String
        var latitude: Double
        var longitude: Double
        var radiusKilometres: Double
        var city: String?
        var country: String
        var description: String { address }
    }

    static let cases: [Case] = [
        Case(address: "81.2.69.160", latitude: 51.5142, longitude: -0.0931, radiusKilometres: 100, city: "London",
            country: "GB"),
        Case(address: "216.160.83.56", latitude: 47.2513, longitude: -122.3149, radiusKilometres: 22, city: "Milton",
            country: "US"),
        Case(address: "89.160.20.112", latitude: 58.4167, longitude: 15.6167, radiusKilometres: 76,
            city: "Linköping", country: "SE"),
        Case(address: "175.16.199.0", latitude: 43.88, longitude: 125.3228, radiusKilometres: 100, city: "Changchun",
            country: "CN"),
        Case(address: "2001:218::", latitude: 35.68536, longitude: 139.75309, radiusKilometres: 100, city: nil,
            country: "JP"),
        Case(address: "2a02:cf40::", latitude: 62, longitude: 10, radiusKilometres: 100, city: nil, country: "NO"),
        // IPv4-mapped IPv6: libmaxminddb finds the IPv4 entry through the mapped subtree.
        Case(address: "::ffff:81.2.69.160", latitude: 51.5142, longitude: -0.0931, radiusKilometres: 100,
            city: "London", country: "GB"),
    ]

    @Test(arguments: cases) func cityLookups(_ expected: Case) throws {
        let database = try MaxMindDatabase(path: Fixtures.city)
        let address = try #require(IPAddress(expected.address))
        let location = try #require(try database.lookup(address))
        #expect(location.latitude == expected.latitude)
        #expect(location.longitude == expected.longitude)
        #expect(location.horizontalAccuracy == expected.radiusKilometres * 1000)
        #expect(location.accuracyFromDatabase)
        #expect(location.city == expected.city)
        #expect(location.countryCode == expected.country)
    }

    @Test func metadata() throws {
        let database = try MaxMindDatabase(path: Fixtures.city)
        #expect(database.databaseType == "GeoIP2-City")
    }

    @Test func unknownAddressesHaveNoEntry() throws {
        let database = try MaxMindDatabase(path: Fixtures.city)
        #expect(try database.lookup(ip("2001:480::1")) == nil)
        #expect(try database.lookup(ip("8.8.8.8")) == nil)
    }

    @Test func aDatabaseWithoutCoordinatesSaysSo() throws {
        let database = try MaxMindDatabase(path: Fixtures.mmdb("GeoIP2-Country-Test"))
        expectError(.noCoordinates) { try database.lookup(ip("81.2.69.160")) }
        // An IPv4-only database does not know IPv6 addresses (no error).
        let v4 = try MaxMindDatabase(path: Fixtures.mmdb("MaxMind-DB-test-ipv4-24"))
        #expect(try v4.lookup(ip("2a02:cf40::")) == nil)
    }

    @Test func aMissingDatabase() throws {
        expectError(.databaseMissing) {
            try MaxMindDatabase(path: "/nonexistent/corelocation/x.mmdb")
        }
    }

    @Test func truncatedAndCorruptFilesAreRefusedAtOpen() throws {
        let scratch = try Fixtures.scratch()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.city))
        var generator = SplitMix64(seed: 14)
        let files: [(String, Data)] = [
            ("empty", Data()),
            ("half", whole.prefix(whole.count / 2)),
            // Without the metadata marker at the end.
            ("no-metadata", whole.prefix(whole.count - 300)),
            ("random", Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ("text", Data("not a database\n".utf8)),
        ]
        for (name, data) in files {
            let path = scratch.path(name + ".mmdb")
            try data.write(to: URL(fileURLWithPath: path))
            expectError(.databaseInvalid, "\(name)") { try MaxMindDatabase(path: path) }
        }
        expectError(.databaseInvalid) {
            try MaxMindDatabase(path: Fixtures.mmdb("GeoIP2-City-Test-Invalid-Node-Count"))
        }
    }

    /// MaxMind's damaged databases open, and the damage is reported by the look-up that meets it.
    @Test func damagedDataIsALookupError() throws {
        let doubles = try MaxMindDatabase(path: Fixtures.mmdb("GeoIP2-City-Test-Broken-Double-Format"))
        expectError(.lookupFailed) { try doubles.lookup(ip("2001:220::")) }
        let pointers = try MaxMindDatabase(path: Fixtures.mmdb("MaxMind-DB-test-broken-pointers-24"))
        expectError(.lookupFailed) { try pointers.lookup(ip("1.1.1.32")) }
    }
}

/// A seeded generator, so a failing corrupt-file case replays.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

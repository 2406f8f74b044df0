import CoreLocationNetwork
import Foundation
import Testing

/// The native reader against two independent readers (Fixtures/mmdb/oracle.json, made by make-oracle.py):
/// Debian's `mmdblookup` (libmaxminddb 1.7.1, what `MaxMindDatabase` was built on before decision 0060) and the
/// pure-Python reader of PyPI maxminddb 3.2.0, on MaxMind's test databases — well-formed, damaged and hostile —
/// at every network they hold.
@Suite struct MaxMindOracleTests {
    /// Files the two readers disagree about opening, and what the native reader does (decision 0061).
    static let openings: [String: Bool] = [
        // libmaxminddb 1.7.1 has no decoder limits; the metadata alone is over 2 MiB of strings: refused, as
        // the Python reader and libmaxminddb ≥ 1.13 refuse it.
        "MaxMind-DB-test-metadata-payload-limit": false,
    ]

    @Test func theOracleIsThere() throws {
        let oracle = try #require(MaxMindOracle.shared, "Fixtures/mmdb/oracle.json is missing or unreadable")
        #expect(oracle.databases.count > 60)
        #expect(oracle.libmaxminddb.contains("1.7.1"))
    }

    /// Whether the native reader should open `name`: when both readers do, unless `openings` says otherwise.
    static func opens(_ name: String, _ expected: MaxMindOracle.Database) -> Bool {
        openings[name] ?? (expected.libmaxminddbOpens && expected.pythonOpens)
    }

    /// The oracle's rows for `name`, each with the database (opened: it must open when the oracle has rows).
    static func rows<Row>(_ name: String, _ rows: KeyPath<MaxMindOracle.Database, [Row]?>) throws
        -> [(MaxMindDatabase, Row)]
    {
        let expected = try #require(MaxMindOracle.shared?.databases[name])
        let rows = expected[keyPath: rows] ?? []
        guard !rows.isEmpty else { return [] }
        #expect(opens(name, expected), "\(name): not to be opened, yet the oracle has rows for it")
        let database = try MaxMindDatabase(path: Fixtures.mmdb(name))
        return rows.map { (database, $0) }
    }

    @Test(arguments: MaxMindOracle.names) func opensAsTheOthersDo(_ name: String) throws {
        let oracle = try #require(MaxMindOracle.shared)
        let expected = try #require(oracle.databases[name])
        let opens = Self.opens(name, expected)
        if expected.libmaxminddbOpens != expected.pythonOpens {
            #expect(Self.openings[name] != nil, "the readers disagree on \(name): say in `openings` what we do")
        }
        do {
            let database = try MaxMindDatabase(path: Fixtures.mmdb(name))
            #expect(opens, "\(name) opened")
            if let metadata = expected.metadata {
                let got = database.metadata
                #expect(
                    MaxMindOracle.Metadata(
                        nodeCount: got.nodeCount, recordSize: got.recordSize, ipVersion: got.ipVersion,
                        databaseType: got.databaseType, languages: got.languages,
                        binaryFormatMajorVersion: got.binaryFormatMajorVersion,
                        binaryFormatMinorVersion: got.binaryFormatMinorVersion, buildEpoch: got.buildEpoch,
                        descriptions: got.descriptions) == metadata)
            }
        } catch let error as NetworkSourceError {
            #expect(!opens, "\(name): \(error)")
            #expect(error.code == .databaseInvalid, "\(error)")
        }
    }

    /// Whole records with libmaxminddb's types and Python's values, and the prefix length of the network.
    @Test(arguments: MaxMindOracle.names) func recordsAsTheOthersReadThem(_ name: String) throws {
        let oracle = try #require(MaxMindOracle.shared)
        for (database, lookup) in try Self.rows(name, \.lookups) {
            let address = try ip(lookup.address)
            switch lookup.record {
            case "error"?, "untyped"?:
                // The Python reader refuses the record, or ("untyped") reads one where libmaxminddb refuses: a tree
                // record inside the data section separator (decision 0061).
                expectError(.lookupFailed, "\(name) \(lookup.address)") { try database.record(for: address) }
            case nil:
                let (value, prefix) = try database.record(for: address)
                #expect(value == nil, "\(name) \(lookup.address)")
                #expect(prefix == lookup.prefixLength, "\(name) \(lookup.address)")
            case let key?:
                let expected = try #require(oracle.records[key])
                let (value, prefix) = try database.record(for: address)
                let got = try #require(value, "\(name) \(lookup.address): no record")
                #expect(MaxMindOracle.Tagged(got).matches(expected), "\(name) \(lookup.address)")
                #expect(prefix == lookup.prefixLength, "\(name) \(lookup.address)")
            }
        }
    }

    /// `lookup` gives what the libmaxminddb-backed `lookup` gave: the location, nil, or the same error code.
    @Test(arguments: MaxMindOracle.names) func lookupsAsLibmaxminddbGaveThem(_ name: String) throws {
        for (database, row) in try Self.rows(name, \.locations) {
            let address = try ip(row.address)
            let got = MaxMindOracle.Location.Outcome { try database.lookup(address) }
            #expect(got == row.outcome, "\(name) \(row.address)")
        }
    }

    @Test func theOracleCoversEveryKindOfAnswer() throws {
        let oracle = try #require(MaxMindOracle.shared)
        let outcomes = oracle.databases.values.flatMap { $0.locations ?? [] }.map(\.outcome)
        let located = outcomes.filter { if case .location = $0 { true } else { false } }
        #expect(located.count > 500)
        #expect(outcomes.contains(.none))
        #expect(outcomes.contains(.error("noCoordinates")))
        #expect(outcomes.contains(.error("lookupFailed")))
        let records = oracle.databases.values.flatMap { $0.lookups ?? [] }
        #expect(records.count > 5000)
        #expect(records.contains { $0.record == "error" })
    }
}

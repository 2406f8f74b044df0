import CoreLocationNetwork
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Opening the file: what a missing or odd path says, the same answers from memory as from the mapping, and
/// look-ups from several threads at once.
@Suite struct MaxMindFileTests {
    @Test func aMissingDatabaseSaysWhereItLookedAndHowToGetOne() throws {
        let path = "/nonexistent/corelocation/ip-city.mmdb"
        do {
            _ = try MaxMindDatabase(path: path)
            Issue.record("opened \(path)")
        } catch let error as NetworkSourceError {
            #expect(error.code == .databaseMissing)
            #expect(error.message.hasPrefix(path + ": no such IP database"), "\(error)")
            #expect(error.message.contains("scripts/fetch-ip-database.sh"), "\(error)")
            #expect(error.message.contains("CORELOCATION_IP_DATABASE"), "\(error)")
        }
    }

    @Test func aDirectoryOrAFIFOIsNotADatabase() throws {
        let scratch = try Fixtures.scratch()
        expectError(.databaseInvalid) { try MaxMindDatabase(path: scratch.path("")) }
        let fifo = scratch.path("pipe.mmdb")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Opened without blocking, then refused: no writer ever comes.
        expectError(.databaseInvalid) { try MaxMindDatabase(path: fifo) }
    }

    @Test func bytesInMemoryReadAsTheMappedFile() throws {
        let mapped = try MaxMindDatabase(path: Fixtures.city)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.city))
        let copied = try MaxMindDatabase(bytes: bytes)
        #expect(copied.metadata == mapped.metadata)
        for text in ["81.2.69.160", "2001:218::", "::ffff:81.2.69.160", "8.8.8.8"] {
            let address = try ip(text)
            #expect(try copied.lookup(address) == mapped.lookup(address), "\(text)")
            #expect(try copied.record(for: address) == mapped.record(for: address), "\(text)")
        }
    }

    @Test func lookupsFromManyThreadsAgree() async throws {
        let database = try MaxMindDatabase(path: Fixtures.city)
        let addresses = try ["81.2.69.160", "216.160.83.56", "89.160.20.112", "175.16.199.0", "2a02:cf40::"].map(ip)
        let expected = try addresses.map { try database.lookup($0) }
        let results = try await withThrowingTaskGroup(of: [IPLocation?].self) { group in
            for _ in 0..<8 {
                group.addTask { try (0..<200).flatMap { _ in try addresses.map { try database.lookup($0) } } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        for result in results {
            #expect(result == Array([[IPLocation?]](repeating: expected, count: 200).joined()))
        }
    }
}

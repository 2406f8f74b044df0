import GRDB
import Testing

@testable import CoreLocationStorage

/// Issue 37, item 12: the daemon's database syncs at every commit (`synchronous = FULL`, 2), on its own
/// connection, whatever SQLite's build default.
@Suite struct DurabilityTests {
    @Test func theDatabaseSyncsEveryCommit() throws {
        try withTemporaryDirectory { directory in
            let database = try LocationDatabase(path: directory + "/locationd.sqlite")
            let level = try database.queue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(level == 2)
            let mode = try database.queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "delete")
        }
    }
}

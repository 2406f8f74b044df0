import Foundation
import GRDB
import CoreLocationEngine
import CoreLocationStorage
import Testing

private let decisionTime = Date(timeIntervalSince1970: 1_600_000_000)

@Suite struct RecoveryTests {
    /// `<path>.<reason>-YYYYMMDDTHHMMSSZ`, optionally `-N` when that name was taken.
    private func expectAsideName(_ aside: String?, for path: String, reason: String) {
        guard let aside else {
            Issue.record("nothing was moved aside")
            return
        }
        let prefix = "\(path).\(reason)-"
        #expect(aside.hasPrefix(prefix), "\(aside)")
        let stamp = aside.dropFirst(prefix.count)
        #expect(stamp.wholeMatch(of: /\d{8}T\d{6}Z(-\d+)?/) != nil, "\(stamp)")
    }

    private func expectFreshAndWorking(_ store: AuthorizationStore, path: String) throws {
        #expect(try store.allDecisions().isEmpty)
        #expect(try store.defaultPolicy() == nil)
        let decision = AuthorizationDecision(appID: "org.example.after", level: .always, decidedAt: decisionTime)
        try store.save(decision)
        #expect(try AuthorizationStore(path: path).decision(for: decision.appID) == decision)
        #expect(permissionBits(path) == 0o600)
    }

    @Test func randomBytesAreMovedAsideUntouched() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            var generator = SeededGenerator(seed: 0xC0FF_EE00)
            let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try garbage.write(to: URL(fileURLWithPath: path))

            let recorder = LogRecorder()
            let store = try AuthorizationStore(path: path, logger: recorder.logger)

            expectAsideName(store.recoveredFrom, for: path, reason: "corrupt")
            #expect(store.database.recovery?.reason == .corrupt)
            #expect(store.database.recovery?.originalPath == path)
            let aside = try #require(store.recoveredFrom)
            #expect(FileManager.default.contents(atPath: aside) == garbage)

            // Data.write made the file 0644: one warning for tightening it, one for moving it aside.
            let warnings = recorder.entries.filter { $0.level == .warning }
            #expect(warnings.count == 2)
            #expect(permissionBits(aside) == 0o600)
            let warning = try #require(warnings.first { $0.metadata["movedAside"] != nil })
            #expect(warning.message.contains(path))
            #expect(warning.message.contains(aside))
            #expect(warning.metadata["movedAside"] == .string(aside))

            try expectFreshAndWorking(store, path: path)
        }
    }

    @Test func aDamagedDatabaseOfOursIsMovedAside() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let store = try AuthorizationStore(path: path)
            for index in 0..<200 {
                try store.save(AuthorizationDecision(appID: "app.\(index)", level: .denied, decidedAt: decisionTime))
            }
            // Keep the header (first 100 bytes) so SQLite still sees its format, and overwrite
            // the rest of the first pages with seeded noise.
            var bytes = try #require(FileManager.default.contents(atPath: path))
            var generator = SeededGenerator(seed: 0xBAD_5EED)
            for index in 100..<min(bytes.count, 12_288) {
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            try bytes.write(to: URL(fileURLWithPath: path))

            let reopened = try AuthorizationStore(path: path)
            expectAsideName(reopened.recoveredFrom, for: path, reason: "corrupt")
            let aside = try #require(reopened.recoveredFrom)
            #expect(FileManager.default.contents(atPath: aside) == bytes)
            try expectFreshAndWorking(reopened, path: path)
        }
    }

    @Test func aForeignSQLiteDatabaseIsMovedAsideIntact() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let foreign = try DatabaseQueue(path: path)
            try foreign.write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO note (body) VALUES ('buy milk')")
            }
            try foreign.close()

            let recorder = LogRecorder()
            let store = try AuthorizationStore(path: path, logger: recorder.logger)
            expectAsideName(store.recoveredFrom, for: path, reason: "foreign")
            #expect(store.database.recovery?.reason == .foreign)

            let aside = try #require(store.recoveredFrom)
            let kept = try DatabaseQueue(path: aside)
            #expect(try kept.read { db in try String.fetchAll(db, sql: "SELECT body FROM note") } == ["buy milk"])
            try kept.close()
            #expect(recorder.entries.contains { $0.level == .warning && $0.message.contains(aside) })
            try expectFreshAndWorking(store, path: path)
        }
    }

    @Test func aDatabaseFromANewerSchemaIsMovedAside() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let decision = AuthorizationDecision(appID: "org.example.kept", level: .always, decidedAt: decisionTime)
            try AuthorizationStore(path: path).save(decision)
            let newer = try DatabaseQueue(path: path)
            try newer.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
            try newer.close()

            let store = try AuthorizationStore(path: path)
            expectAsideName(store.recoveredFrom, for: path, reason: "newer")
            #expect(store.database.recovery?.reason == .newerSchema)
            let aside = try #require(store.recoveredFrom)
            let kept = try DatabaseQueue(path: aside)
            let appIDs = try kept.read { db in try String.fetchAll(db, sql: "SELECT appID FROM authorizationDecision") }
            #expect(appIDs == [decision.appID])
            try kept.close()
            try expectFreshAndWorking(store, path: path)
        }
    }

    @Test func anEmptyFileOrAnEmptyMigrationTableIsOurs() throws {
        try withTemporaryDirectory { directory in
            let empty = directory + "/empty.sqlite"
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            #expect(try AuthorizationStore(path: empty).recoveredFrom == nil)

            // What a concurrent opener leaves between creating grdb_migrations and migrating.
            let halfway = directory + "/halfway.sqlite"
            let queue = try DatabaseQueue(path: halfway)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            try queue.close()
            #expect(try AuthorizationStore(path: halfway).recoveredFrom == nil)
        }
    }

    @Test func twoRecoveriesInTheSameSecondKeepBothFiles() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            var asides: [String] = []
            for text in ["first garbage", "second garbage"] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                asides.append(try #require(try AuthorizationStore(path: path).recoveredFrom))
            }
            #expect(Set(asides).count == 2)
            // Whatever the clock did between the two, each file kept its own bytes.
            #expect(FileManager.default.contents(atPath: asides[0]) == Data("first garbage".utf8))
            #expect(FileManager.default.contents(atPath: asides[1]) == Data("second garbage".utf8))
        }
    }
}

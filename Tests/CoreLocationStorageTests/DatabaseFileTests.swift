import Foundation
import GRDB
import CoreLocationEngine
import CoreLocationStorage
import Testing

private let decisionTime = Date(timeIntervalSince1970: 1_650_000_000)

@Suite struct DatabaseFileTests {
    @Test func createsMissingDirectoriesPrivateAndTheFileMode0600() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/a/b/corelocation/corelocation.sqlite"
            let store = try AuthorizationStore(path: path)
            try store.save(AuthorizationDecision(appID: "org.example.maps", level: .always, decidedAt: decisionTime))

            #expect(store.path == path)
            #expect(permissionBits(path) == 0o600)
            for created in ["/a", "/a/b", "/a/b/corelocation"] {
                #expect(permissionBits(directory + created) == 0o700, "\(created)")
            }
            // The directory we were given already existed: left as it was.
            #expect(permissionBits(directory) != nil)
        }
    }

    @Test func rollbackJournalIsAsPrivateAsTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            _ = try AuthorizationStore(path: path)
            // Hold a write transaction open so the transient -journal exists, then look at it.
            let queue = try DatabaseQueue(path: path)
            let journalMode = try queue.write { db in
                try db.execute(sql: "INSERT INTO setting (key, value) VALUES ('probe', 'x')")
                return permissionBits(path + "-journal")
            }
            try queue.close()
            #expect(journalMode == 0o600)
            #expect(permissionBits(path + "-wal") == nil)
        }
    }

    @Test func tightensAnExistingWiderMode() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            _ = try AuthorizationStore(path: path)
            #expect(chmod(path, 0o644) == 0)
            let recorder = LogRecorder()
            let store = try AuthorizationStore(path: path, logger: recorder.logger)
            #expect(permissionBits(path) == 0o600)
            #expect(store.recoveredFrom == nil)
            let warnings = recorder.entries.filter { $0.level == .warning }
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.contains("644") == true)
        }
    }

    @Test func aDirectoryInPlaceOfTheFileIsCannotOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let error = #expect(throws: StorageError.self) { try AuthorizationStore(path: path) }
            #expect(error?.code == .cannotOpen)
        }
    }

    @Test func decisionsSurviveReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let decision = AuthorizationDecision(
                appID: "org.example.hiking",
                level: .whenInUse,
                accuracy: .reduced,
                decidedAt: decisionTime,
                provisional: true,
                usageDescription: "Records your hikes."
            )
            do {
                let first = try AuthorizationStore(path: path)
                try first.save(decision)
                try first.setDefaultPolicy(.whenInUse)
            }
            let second = try AuthorizationStore(path: path)
            #expect(second.recoveredFrom == nil)
            #expect(try second.decision(for: decision.appID) == decision)
            #expect(try second.defaultPolicy() == .whenInUse)
        }
    }

    @Test func twoStoresOverOneFileSeeEachOthersWrites() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let first = try AuthorizationStore(path: path)
            let second = try AuthorizationStore(path: path)

            let maps = AuthorizationDecision(appID: "org.example.maps", level: .always, decidedAt: decisionTime)
            try first.save(maps)
            #expect(try second.decision(for: maps.appID) == maps)

            let weather = AuthorizationDecision(appID: "org.example.weather", level: .denied, decidedAt: decisionTime)
            try second.save(weather)
            #expect(try first.allDecisions() == [maps, weather])

            try first.reset(appID: maps.appID)
            #expect(try second.allDecisions() == [weather])
            try second.setDefaultPolicy(.deny)
            #expect(try first.defaultPolicy() == .deny)
        }
    }

    @Test func concurrentWritersThroughTwoStoresLoseNothing() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let stores = [try AuthorizationStore(path: path), try AuthorizationStore(path: path)]
            let perStore = 50
            let failures = LogRecorder()
            DispatchQueue.concurrentPerform(iterations: stores.count) { storeIndex in
                for index in 0..<perStore {
                    let decision = AuthorizationDecision(
                        appID: "org.example.s\(storeIndex).\(index)",
                        level: .whenInUse,
                        decidedAt: decisionTime.addingTimeInterval(Double(index))
                    )
                    do {
                        try stores[storeIndex].save(decision)
                    } catch {
                        failures.logger.error("\(error)")
                    }
                }
            }
            #expect(failures.entries.map(\.message) == [])
            for store in stores {
                #expect(try store.allDecisions().count == stores.count * perStore)
            }
            let queue = try DatabaseQueue(path: path)
            #expect(try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
            try queue.close()
        }
    }
}

import Foundation
import GRDB
import CoreLocationEngine
import Testing

@testable import CoreLocationStorage

@Suite struct RegionStoreTests {
    static let home = MonitoredRegion(
        identifier: "home", latitude: 48.8584, longitude: 2.2945, radius: 150.5, notifyOnEntry: false)
    static let work = MonitoredRegion(identifier: "work", latitude: -33.8568, longitude: 151.2153, radius: 300)

    @Test func regionsRoundTripPerAppOnDiskAndInMemory() throws {
        try withTemporaryDirectory { directory in
            for store in [try RegionStore(path: directory + "/db.sqlite"), try RegionStore.inMemory()] {
                try store.save(
                    [
                        StoredRegion(region: Self.work, state: .outside),
                        StoredRegion(region: Self.home, state: .inside),
                    ], appID: "a")
                try store.save(StoredRegion(region: Self.home, state: .unknown), appID: "b")
                #expect(
                    try store.regions(appID: "a") == [
                        StoredRegion(region: Self.home, state: .inside),
                        StoredRegion(region: Self.work, state: .outside),
                    ])
                #expect(try store.regions(appID: "b") == [StoredRegion(region: Self.home, state: .unknown)])
                try store.save(StoredRegion(region: Self.home, state: .outside), appID: "a")
                try store.removeRegion(identifier: "work", appID: "a")
                try store.removeRegion(identifier: "nothing", appID: "a")
                #expect(try store.regions(appID: "a") == [StoredRegion(region: Self.home, state: .outside)])
            }
        }
    }

    @Test func aSecondOpenerOfTheSameFileSeesTheRegions() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/db.sqlite"
            try RegionStore(path: path).save(StoredRegion(region: Self.home, state: .inside), appID: "a")
            #expect(try RegionStore(path: path).regions(appID: "a").map(\.state) == [.inside])
        }
    }

    @Test func anUnknownStoredStateIsRefusedNotGuessed() throws {
        let store = try RegionStore.inMemory()
        try store.save(StoredRegion(region: Self.home, state: .inside), appID: "a")
        try store.database.write("tampering") { db in
            try db.execute(sql: "UPDATE monitoredRegion SET state = 'hovering'")
        }
        #expect(throws: StorageError.self) { try store.regions(appID: "a") }
    }

    @Test func monitorRecordsArePerMonitorName() throws {
        let store = try RegionStore.inMemory()
        let date = Date(timeIntervalSince1970: 1_750_000_000)
        try store.save(
            MonitorRecordRow(identifier: "x", condition: Data("{}".utf8), state: 1, date: date), monitor: "m1",
            appID: "a")
        try store.save(
            MonitorRecordRow(identifier: "y", condition: Data("[]".utf8), state: 2, date: date), monitor: "m2",
            appID: "a")
        #expect(
            try store.records(monitor: "m1", appID: "a") == [
                MonitorRecordRow(identifier: "x", condition: Data("{}".utf8), state: 1, date: date)
            ])
        try store.removeRecord(identifier: "y", monitor: "m2", appID: "a")
        #expect(try store.records(monitor: "m2", appID: "a").isEmpty)
    }

    /// A file written before regions existed (only `v1-authorization`) is migrated in place: its
    /// decisions stay, the region tables appear.
    @Test func aVersionOneFileIsMigratedKeepingItsDecisions() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/db.sqlite"
            let queue = try DatabaseQueue(path: path)
            var v1 = DatabaseMigrator()
            v1.registerMigration("v1-authorization") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE authorizationDecision (appID TEXT PRIMARY KEY, level TEXT NOT NULL,
                        accuracy TEXT NOT NULL, decidedAt DATETIME NOT NULL, provisional BOOLEAN NOT NULL, usageDescription TEXT);
                        CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                        INSERT INTO authorizationDecision
                        VALUES ('app', 'always', 'full', '2026-01-01 00:00:00.000', 0, NULL);
                        """)
            }
            try v1.migrate(queue)
            try queue.close()
            let database = try LocationDatabase(path: path)
            #expect(database.recovery == nil)
            #expect(try AuthorizationStore(database: database).decision(for: "app")?.level == .always)
            try RegionStore(database: database).save(StoredRegion(region: Self.home, state: .inside), appID: "app")
            #expect(try RegionStore(database: database).regions(appID: "app").count == 1)
        }
    }
}

import Foundation
import GRDB
import CoreLocationEngine
import Logging

/// Each app's monitored regions (with the state last determined) and `CLMonitor` records, so
/// they survive a restart as Apple's do.
///
/// Shares the ``LocationDatabase`` with the other stores; each call is one transaction.
/// Coordinates are plain REAL columns; states are `RegionState` raw values, and a value this
/// version does not know is refused with `StorageError.Code.invalidValue`, never guessed.
public final class RegionStore: Sendable {
    public let database: LocationDatabase

    static let regionTable = "monitoredRegion"
    static let recordTable = "monitorRecord"

    public init(database: LocationDatabase) {
        self.database = database
    }

    /// Opens or creates the database file at `path`; see ``LocationDatabase/init(path:logger:)``.
    public convenience init(path: String, logger: Logger = Logger(label: "corelocation.storage")) throws {
        self.init(database: try LocationDatabase(path: path, logger: logger))
    }

    /// A store over a fresh in-memory database (for tests).
    public static func inMemory() throws -> RegionStore {
        RegionStore(database: try LocationDatabase.inMemory())
    }

    static func createTables(_ db: Database) throws {
        try db.create(table: regionTable) { table in
            table.column("appID", .text).notNull()
            table.column("identifier", .text).notNull()
            table.column("latitude", .double).notNull()
            table.column("longitude", .double).notNull()
            table.column("radius", .double).notNull()
            table.column("notifyOnEntry", .boolean).notNull()
            table.column("notifyOnExit", .boolean).notNull()
            table.column("state", .text).notNull()
            table.primaryKey(["appID", "identifier"])
        }
        try db.create(table: recordTable) { table in
            table.column("appID", .text).notNull()
            table.column("monitor", .text).notNull()
            table.column("identifier", .text).notNull()
            table.column("condition", .blob).notNull()
            table.column("state", .text).notNull()
            table.column("date", .datetime).notNull()
            table.primaryKey(["appID", "monitor", "identifier"])
        }
    }

    // MARK: Regions

    /// The app's regions, sorted by identifier (byte order).
    public func regions(appID: String) throws -> [StoredRegion] {
        try database.read("reading the regions of \(appID)") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM \(Self.regionTable) WHERE appID = ? ORDER BY identifier COLLATE BINARY",
                arguments: [appID]
            ).map(Self.region(from:))
        }
    }

    /// Stores a region, replacing one with the same identifier.
    public func save(_ stored: StoredRegion, appID: String) throws {
        try save([stored], appID: appID)
    }

    /// Stores several regions in one transaction.
    public func save(_ stored: [StoredRegion], appID: String) throws {
        try database.write("saving regions of \(appID)") { db in
            for item in stored { try Self.insert(item, appID: appID, db) }
        }
    }

    /// Stores a region inside the caller's transaction (the background store writes a crossing's
    /// pending event and the region's new state in one, decision 0039).
    static func insert(_ item: StoredRegion, appID: String, _ db: Database) throws {
        let region = item.region
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO \(Self.regionTable)
                (appID, identifier, latitude, longitude, radius, notifyOnEntry, notifyOnExit, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                appID, region.identifier, region.latitude, region.longitude, region.radius,
                region.notifyOnEntry, region.notifyOnExit, item.state.rawValue,
            ]
        )
    }

    /// Forgets a region; nothing happens when it is not stored.
    public func removeRegion(identifier: String, appID: String) throws {
        try database.write("removing region \(identifier) of \(appID)") { db in
            try db.execute(
                sql: "DELETE FROM \(Self.regionTable) WHERE appID = ? AND identifier = ?",
                arguments: [appID, identifier]
            )
        }
    }

    static func region(from row: Row) throws -> StoredRegion {
        let identifier = try row.decode(String.self, forColumn: "identifier")
        let stateText = try row.decode(String.self, forColumn: "state")
        guard let state = RegionState(rawValue: stateText) else {
            throw StorageError(
                code: .invalidValue, message: "unknown region state \"\(stateText)\" stored for \(identifier)")
        }
        return StoredRegion(
            region: MonitoredRegion(
                identifier: identifier,
                latitude: try row.decode(Double.self, forColumn: "latitude"),
                longitude: try row.decode(Double.self, forColumn: "longitude"),
                radius: try row.decode(Double.self, forColumn: "radius"),
                notifyOnEntry: try row.decode(Bool.self, forColumn: "notifyOnEntry"),
                notifyOnExit: try row.decode(Bool.self, forColumn: "notifyOnExit")
            ),
            state: state
        )
    }
}

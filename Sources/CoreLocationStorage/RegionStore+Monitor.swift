import Foundation
import GRDB

/// One `CLMonitor` record as stored: the condition (encoded by the façade, opaque here), the
/// last state's raw value and when it was reached.
public struct MonitorRecordRow: Hashable, Sendable {
    public var identifier: String
    public var condition: Data
    /// `CLMonitor.Event.State` raw value: 0 unknown, 1 satisfied, 2 unsatisfied, 3 unmonitored.
    public var state: Int
    public var date: Date

    public init(identifier: String, condition: Data, state: Int, date: Date) {
        self.identifier = identifier
        self.condition = condition
        self.state = state
        self.date = date
    }
}

extension RegionStore {
    /// The records of the monitor called `monitor`, sorted by identifier (byte order).
    public func records(monitor: String, appID: String) throws -> [MonitorRecordRow] {
        try database.read("reading monitor \(monitor) of \(appID)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM \(Self.recordTable) WHERE appID = ? AND monitor = ?
                    ORDER BY identifier COLLATE BINARY
                    """,
                arguments: [appID, monitor]
            ).map { row in
                let stateText = try row.decode(String.self, forColumn: "state")
                guard let state = Int(stateText), (0...3).contains(state) else {
                    throw StorageError(code: .invalidValue, message: "unknown monitor state \"\(stateText)\" stored")
                }
                return MonitorRecordRow(
                    identifier: try row.decode(String.self, forColumn: "identifier"),
                    condition: try row.decode(Data.self, forColumn: "condition"),
                    state: state,
                    date: try row.decode(Date.self, forColumn: "date")
                )
            }
        }
    }

    /// Stores a record, replacing one with the same identifier in the same monitor.
    public func save(_ record: MonitorRecordRow, monitor: String, appID: String) throws {
        try database.write("saving record \(record.identifier) of monitor \(monitor)") { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO \(Self.recordTable) (appID, monitor, identifier, condition, state, date)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [appID, monitor, record.identifier, record.condition, String(record.state), record.date]
            )
        }
    }

    /// Forgets a record; nothing happens when it is not stored.
    public func removeRecord(identifier: String, monitor: String, appID: String) throws {
        try database.write("removing record \(identifier) of monitor \(monitor)") { db in
            try db.execute(
                sql: "DELETE FROM \(Self.recordTable) WHERE appID = ? AND monitor = ? AND identifier = ?",
                arguments: [appID, monitor, identifier]
            )
        }
    }
}

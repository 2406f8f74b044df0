import Foundation
import GRDB

extension AuthorizationStore {
    static let servicesKey = "services"

    /// The location services switch (`locationctl services on|off`); on when never set.
    public func servicesEnabled() throws -> Bool {
        let text = try database.read("reading the services switch") { db in
            try SettingRow.value(db, key: Self.servicesKey)
        }
        return text != "off"
    }

    public func setServicesEnabled(_ enabled: Bool) throws {
        try database.write("setting the services switch") { db in
            try SettingRow.setValue(db, enabled ? "on" : "off", key: Self.servicesKey)
        }
    }
}

extension LocationDatabase {
    /// Switches the file to SQLite's write-ahead log (locationd's database: readers never wait for
    /// the writer). SQLite gives the `-wal` and `-shm` files the database file's own mode (0600).
    public func enableWriteAheadLog() throws {
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode=WAL")
        }
    }
}

import GRDB

extension LocationDatabase {
    /// Every schema change of the file, in order. Append new migrations ("v2-regions", …); never
    /// edit or reorder a released one.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-authorization") { db in
            try db.create(table: AuthorizationRow.tableName) { table in
                table.primaryKey("appID", .text)
                table.column("level", .text).notNull()
                table.column("accuracy", .text).notNull()
                table.column("decidedAt", .datetime).notNull()
                table.column("provisional", .boolean).notNull()
                table.column("usageDescription", .text)
            }
            try db.create(table: SettingRow.tableName) { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-regions") { db in
            try RegionStore.createTables(db)
        }
        migrator.registerMigration("v3-background") { db in
            try BackgroundStore.createTables(db)
        }
        migrator.registerMigration("v4-background-services") { db in
            try BackgroundStore.addServices(db)
        }
        migrator.registerMigration("v5-beacon-regions") { db in
            try BackgroundStore.addBeaconRegions(db)
        }
        migrator.registerMigration("v6-authorization-request") { db in
            try BackgroundStore.addAuthorizationRequest(db)
        }
        return migrator
    }()

    /// Applies the migrations not yet applied.
    static func migrate(_ queue: DatabaseQueue, path: String) throws {
        do {
            try migrator.migrate(queue)
        } catch {
            // Another process may have migrated the same fresh file between our check of the
            // applied migrations and our own attempt; its work is as good as ours.
            let completed = (try? queue.read { db in try migrator.hasCompletedMigrations(db) }) ?? false
            if !completed {
                throw StorageError(code: .database, message: "cannot migrate database \(path)", underlying: error)
            }
        }
    }

    /// Why the opened file cannot be used as it is, or nil when it is ours (or empty).
    static func unusableReason(_ queue: DatabaseQueue, path: String) throws -> StorageRecovery.Reason? {
        do {
            return try queue.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if check != ["ok"] {
                    return .corrupt
                }
                let known = Set(migrator.migrations)
                let applied = try migrator.appliedIdentifiers(db)
                let tables = try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master
                        WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                        """
                )
                if applied.isDisjoint(with: known) {
                    // No migration of ours: an empty file (or one a concurrent opener is just
                    // migrating) is ours to fill; anything with content belongs to someone else.
                    return applied.isEmpty && tables.isEmpty ? nil : .foreign
                }
                return applied.isSubset(of: known) ? nil : .newerSchema
            }
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
        {
            return .corrupt
        } catch {
            throw StorageError(code: .database, message: "cannot read the schema of \(path)", underlying: error)
        }
    }
}

import Foundation
import GRDB
import CoreLocationEngine

/// The `authorizationDecision` table: one row per app, enums as their raw strings.
enum AuthorizationRow {
    static let tableName = "authorizationDecision"

    /// Reads a decision, refusing values this version does not know rather than guessing.
    static func decision(from row: Row) throws -> AuthorizationDecision {
        let appID = try row.decode(String.self, forColumn: "appID")
        let levelText = try row.decode(String.self, forColumn: "level")
        let accuracyText = try row.decode(String.self, forColumn: "accuracy")
        guard let level = AuthorizationLevel(rawValue: levelText) else {
            throw StorageError(
                code: .invalidValue,
                message: "unknown authorization level \"\(levelText)\" stored for \(appID)"
            )
        }
        guard let accuracy = AccuracyLevel(rawValue: accuracyText) else {
            throw StorageError(
                code: .invalidValue,
                message: "unknown accuracy \"\(accuracyText)\" stored for \(appID)"
            )
        }
        return AuthorizationDecision(
            appID: appID,
            level: level,
            accuracy: accuracy,
            decidedAt: try row.decode(Date.self, forColumn: "decidedAt"),
            provisional: try row.decode(Bool.self, forColumn: "provisional"),
            usageDescription: try row.decode(String?.self, forColumn: "usageDescription")
        )
    }

    static func fetchOne(_ db: Database, appID: String) throws -> AuthorizationDecision? {
        let row = try Row.fetchOne(db, sql: "SELECT * FROM \(tableName) WHERE appID = ?", arguments: [appID])
        return try row.map(decision(from:))
    }

    static func fetchAll(_ db: Database) throws -> [AuthorizationDecision] {
        // BINARY collation: a stable, locale-independent order of the UTF-8 bytes.
        try Row.fetchAll(db, sql: "SELECT * FROM \(tableName) ORDER BY appID COLLATE BINARY")
            .map(decision(from:))
    }

    static func upsert(_ db: Database, _ decision: AuthorizationDecision) throws {
        try db.execute(
            sql: """
                INSERT INTO \(tableName) (appID, level, accuracy, decidedAt, provisional, usageDescription)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(appID) DO UPDATE SET
                    level = excluded.level,
                    accuracy = excluded.accuracy,
                    decidedAt = excluded.decidedAt,
                    provisional = excluded.provisional,
                    usageDescription = excluded.usageDescription
                """,
            arguments: [
                decision.appID,
                decision.level.rawValue,
                decision.accuracy.rawValue,
                decision.decidedAt,
                decision.provisional,
                decision.usageDescription,
            ]
        )
    }

    static func delete(_ db: Database, appID: String) throws {
        try db.execute(sql: "DELETE FROM \(tableName) WHERE appID = ?", arguments: [appID])
    }
}

/// The `setting` table: global key/value settings, values as text.
enum SettingRow {
    static let tableName = "setting"
    static let defaultPolicyKey = "defaultPolicy"

    static func value(_ db: Database, key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM \(tableName) WHERE key = ?", arguments: [key])
    }

    static func setValue(_ db: Database, _ value: String?, key: String) throws {
        if let value {
            try db.execute(
                sql: """
                    INSERT INTO \(tableName) (key, value) VALUES (?, ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value
                    """,
                arguments: [key, value]
            )
        } else {
            try db.execute(sql: "DELETE FROM \(tableName) WHERE key = ?", arguments: [key])
        }
    }
}

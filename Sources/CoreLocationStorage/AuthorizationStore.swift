import Foundation
import CoreLocationEngine
import Logging

/// The per-app authorization decisions, as the iOS Settings app keeps them, plus the default
/// policy for apps with no decision.
///
/// Each call is its own transaction on the shared ``LocationDatabase``; several stores (in one
/// process or several) over the same file see each other's writes on their next read.
/// `decidedAt` is stored to the millisecond (GRDB's date format).
public final class AuthorizationStore: Sendable {
    public let database: LocationDatabase

    /// A store over an opened database (shared with other stores of the same file).
    public init(database: LocationDatabase) {
        self.database = database
    }

    /// Opens or creates the database file at `path`; see ``LocationDatabase/init(path:logger:)``.
    public convenience init(path: String, logger: Logger = Logger(label: "corelocation.storage")) throws {
        self.init(database: try LocationDatabase(path: path, logger: logger))
    }

    /// A store over a fresh in-memory database (for tests).
    public static func inMemory() throws -> AuthorizationStore {
        AuthorizationStore(database: try LocationDatabase.inMemory())
    }

    /// Where the user's database lives; see ``LocationDatabase/defaultPath(environment:)``.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        LocationDatabase.defaultPath(environment: environment)
    }

    /// The file this store uses, nil when in memory.
    public var path: String? { database.path }

    /// Where an unusable file found at ``path`` was moved before a fresh database replaced it.
    public var recoveredFrom: String? { database.recovery?.movedAsidePath }

    /// The stored decision for `appID`, or nil when the app has none.
    public func decision(for appID: String) throws -> AuthorizationDecision? {
        try database.read("reading the authorization of \(appID)") { db in
            try AuthorizationRow.fetchOne(db, appID: appID)
        }
    }

    /// Stores `decision`, replacing any earlier one for the same app.
    public func save(_ decision: AuthorizationDecision) throws {
        try database.write("saving the authorization of \(decision.appID)") { db in
            try AuthorizationRow.upsert(db, decision)
        }
    }

    /// Forgets the decision for `appID` (the app is asked again); nothing happens if it has none.
    public func reset(appID: String) throws {
        try database.write("resetting the authorization of \(appID)") { db in
            try AuthorizationRow.delete(db, appID: appID)
        }
    }

    /// Every stored decision, sorted by `appID` (byte order of its UTF-8).
    public func allDecisions() throws -> [AuthorizationDecision] {
        try database.read("listing authorizations") { db in
            try AuthorizationRow.fetchAll(db)
        }
    }

    /// The policy for apps with no decision when no terminal can ask, or nil when none is set.
    public func defaultPolicy() throws -> DefaultPolicy? {
        let text = try database.read("reading the default policy") { db in
            try SettingRow.value(db, key: SettingRow.defaultPolicyKey)
        }
        guard let text else { return nil }
        guard let policy = DefaultPolicy(rawValue: text) else {
            throw StorageError(code: .invalidValue, message: "unknown default policy \"\(text)\" stored")
        }
        return policy
    }

    /// Sets the default policy; nil removes it.
    public func setDefaultPolicy(_ policy: DefaultPolicy?) throws {
        try database.write("setting the default policy") { db in
            try SettingRow.setValue(db, policy?.rawValue, key: SettingRow.defaultPolicyKey)
        }
    }
}

import Foundation
import GRDB
import Logging

/// The SQLite file that keeps what must survive a restart: authorization decisions now, regions
/// and monitor records later. One connection (a GRDB `DatabaseQueue`) per file; stores such as
/// ``AuthorizationStore`` share it.
///
/// Opening creates the parent directories (mode 0700) and the file (mode 0600), tightens an
/// existing file's mode to 0600, and applies the named migrations. The rollback journal (no WAL)
/// is used so the only companion file is the transient `-journal`, which SQLite creates with the
/// database file's own permissions.
///
/// A file that is not SQLite, fails SQLite's integrity check, belongs to another program, or was
/// written by a newer schema is never silently lost: it is renamed to
/// `<path>.<reason>-<UTC timestamp>`, a warning naming both paths is logged, a fresh database
/// takes its place, and ``recovery`` says what happened. (Whatever is found at `path` is given
/// mode 0600 before it is even read, so a moved-aside file is private too.)
public final class LocationDatabase: Sendable {
    /// The file, or nil for an in-memory database.
    public let path: String?
    /// Set when the file found at ``path`` was moved aside and replaced by a fresh database.
    public let recovery: StorageRecovery?

    let queue: DatabaseQueue
    let logger: Logger

    /// Opens or creates the database at `path`.
    ///
    /// - Throws: ``StorageError`` with code `cannotCreateDirectory`, `cannotOpen`,
    ///   `cannotMoveAside` or `database`.
    public init(path: String, logger: Logger = Logger(label: "corelocation.storage")) throws {
        try DatabaseFiles.createParentDirectories(of: path)
        try DatabaseFiles.prepareFile(at: path, logger: logger)
        var found: DatabaseQueue?
        var reason: StorageRecovery.Reason?
        switch try Self.openQueue(path: path) {
        case .opened(let queue):
            found = queue
            reason = try Self.unusableReason(queue, path: path)
        case .notADatabase:
            reason = .corrupt
        }
        var recovery: StorageRecovery?
        if let reason {
            do {
                try found?.close()
            } catch {
                throw StorageError(
                    code: .cannotOpen,
                    message: "cannot close \(path) to move it aside",
                    underlying: error
                )
            }
            found = nil
            let movedTo = try DatabaseFiles.moveAside(path, reason: reason, now: Date())
            logger.warning(
                "Moved \(reason.description) database \(path) aside to \(movedTo) and started a fresh one",
                metadata: ["path": "\(path)", "movedAside": "\(movedTo)"]
            )
            recovery = StorageRecovery(reason: reason, originalPath: path, movedAsidePath: movedTo)
            try DatabaseFiles.prepareFile(at: path, logger: logger)
            if case .opened(let queue) = try Self.openQueue(path: path) {
                found = queue
            }
        }
        guard let queue = found else {
            throw StorageError(code: .cannotOpen, message: "\(path) is still not a database after moving it aside")
        }
        try Self.migrate(queue, path: path)
        self.path = path
        self.recovery = recovery
        self.queue = queue
        self.logger = logger
    }

    private init(queue: DatabaseQueue, logger: Logger) {
        self.path = nil
        self.recovery = nil
        self.queue = queue
        self.logger = logger
    }

    /// A fresh, private in-memory database with the current schema (for tests).
    public static func inMemory(logger: Logger = Logger(label: "corelocation.storage")) throws -> LocationDatabase {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue()
        } catch {
            throw StorageError(code: .cannotOpen, message: "cannot open an in-memory database", underlying: error)
        }
        try migrate(queue, path: ":memory:")
        return LocationDatabase(queue: queue, logger: logger)
    }

    /// Runs `body` in a read transaction, turning SQLite errors into ``StorageError``.
    func read<T>(_ what: @autoclosure () -> String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.read(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .database, message: "\(what()) in \(path ?? ":memory:")", underlying: error)
        }
    }

    /// Runs `body` in a write transaction, turning SQLite errors into ``StorageError``.
    func write<T>(_ what: @autoclosure () -> String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.write(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .database, message: "\(what()) in \(path ?? ":memory:")", underlying: error)
        }
    }

    private enum OpenResult {
        case opened(DatabaseQueue)
        case notADatabase
    }

    private static func openQueue(path: String) throws -> OpenResult {
        var configuration = Configuration()
        // Several processes (apps, locationctl, later locationd) share one file: wait for a
        // writer rather than fail at once.
        configuration.busyMode = .timeout(10)
        // Decisions and pending background events are acknowledged to clients once written: FULL syncs the
        // journal and the file at every commit, so a power cut after the acknowledgement loses neither. It is
        // SQLite's compiled-in default for a rollback journal, set here so that no build option or later
        // change of journal mode weakens it unnoticed (issue 37; the report queue says the same for its WAL).
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            return .opened(try DatabaseQueue(path: path, configuration: configuration))
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
        {
            // GRDB reads the schema while opening, so a file that is not SQLite fails here.
            return .notADatabase
        } catch {
            throw StorageError(code: .cannotOpen, message: "cannot open database \(path)", underlying: error)
        }
    }
}

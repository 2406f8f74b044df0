import Foundation
import GRDB
import Logging

/// The durable outbox of reports: a SQLite file (GRDB, WAL, `synchronous = FULL`) that survives a
/// kill and a reboot (docs/decisions/0023).
///
/// - Oldest first, in order: rows carry an increasing sequence; a drain reads them in that order
///   and removes only what the server acknowledged.
/// - At least once: a report leaves the queue only after its acknowledgement; its idempotency key
///   (`QueuedReport.key`) lets the server drop a copy sent again after a lost acknowledgement. The
///   same key queued twice is stored once.
/// - Bounded: at `capacity` rows, each new report first *thins* the oldest track points: the
///   oldest track point whose removal keeps it within `thinningEpsilon` (SED) of the segment
///   between its neighbours goes; if none qualifies, the track or heartbeat point that is least off
///   goes (counted in `thinnedBeyondEpsilon`). Arrivals and departures are never removed: a queue
///   of nothing else grows past its capacity.
/// - A full disk (SQLITE_FULL) gives `ReportingError.diskFull`; what was queued stays.
/// The file is created mode 0600 (locations are sensitive); SQLite gives its -wal and -shm files
/// the same mode.
public final class ReportQueue: Sendable {
    public let path: String?
    public let capacity: Int
    public let thinningEpsilon: Double
    public let device: String
    private let database: DatabaseQueue
    private let logger: Logger
    private let counters = Counters()

    /// Opens or creates the queue at `path`.
    /// - Parameter maximumPageCount: SQLite's `max_page_count` (pages of 4 KiB), to bound the file
    ///   (the tests use it to simulate a full disk).
    public init(
        path: String, device: String, capacity: Int = 100_000, thinningEpsilon: Double = 10,
        maximumPageCount: Int? = nil, logger: Logger = Logger(label: "corelocation.reporting")
    ) throws {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw ReportingError(code: .database, message: "cannot create the queue file \(path)", underlying: error)
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if let maximumPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maximumPageCount)") }
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            try database.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            try Self.migrate(database)
        } catch {
            throw Self.wrap(error, "cannot open the queue \(path)")
        }
        self.path = path
        self.device = device
        self.capacity = max(capacity, 3)
        self.thinningEpsilon = thinningEpsilon
        self.logger = logger
    }

    /// A queue in memory (tests).
    public init(
        inMemoryFor device: String, capacity: Int = 100_000, thinningEpsilon: Double = 10,
        logger: Logger = Logger(label: "corelocation.reporting")
    ) throws {
        do {
            database = try DatabaseQueue()
            try Self.migrate(database)
        } catch {
            throw Self.wrap(error, "cannot open an in-memory queue")
        }
        path = nil
        self.device = device
        self.capacity = max(capacity, 3)
        self.thinningEpsilon = thinningEpsilon
        self.logger = logger
    }

    private static func migrate(_ database: DatabaseQueue) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 report queue") { db in
            try db.create(table: "report") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("key", .text).notNull().unique(onConflict: .ignore)
                t.column("kind", .text).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("altitude", .double).notNull()
                t.column("horizontalAccuracy", .double).notNull()
                t.column("verticalAccuracy", .double).notNull()
                t.column("speed", .double).notNull()
                t.column("course", .double).notNull()
                t.column("fixTime", .double).notNull()
                t.column("enqueuedAt", .double).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
            }
        }
        try migrator.migrate(database)
    }

    static func wrap(_ error: any Error, _ what: String) -> ReportingError {
        if let error = error as? ReportingError { return error }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            return ReportingError(
                code: .diskFull, message: "\(what): the disk (or the queue's size limit) is full", underlying: error)
        }
        return ReportingError(code: .database, message: what, underlying: error)
    }

    /// Queues a decision; returns the queued report (nil when the same key was already queued).
    @discardableResult
    public func enqueue(_ decision: ReportDecision, at now: Date) throws -> QueuedReport? {
        let key = QueuedReport.key(device: device, kind: decision.kind, time: decision.point.timestamp)
        do {
            return try database.write { db -> QueuedReport? in
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM report") ?? 0
                if count >= capacity { try thin(db) }
                let p = decision.point
                try db.execute(
                    sql: """
                        INSERT INTO report (key, kind, latitude, longitude, altitude, horizontalAccuracy,
                            verticalAccuracy, speed, course, fixTime, enqueuedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        key, decision.kind.rawValue, p.latitude, p.longitude, p.altitude, p.horizontalAccuracy,
                        p.verticalAccuracy, p.speed, p.course, p.time, now.timeIntervalSince1970,
                    ]
                )
                guard db.changesCount > 0 else { return nil }
                return QueuedReport(
                    sequence: db.lastInsertedRowID, key: key, kind: decision.kind, point: p, enqueuedAt: now,
                    attempts: 0)
            }
        } catch {
            throw Self.wrap(error, "cannot queue the \(decision.kind.rawValue) report")
        }
    }

    /// The oldest `limit` reports, oldest first.
    public func oldest(_ limit: Int) throws -> [QueuedReport] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM report ORDER BY sequence LIMIT ?", arguments: [limit])
                    .compactMap(Self.report)
            }
        } catch {
            throw Self.wrap(error, "cannot read the queue")
        }
    }

    /// Removes acknowledged reports.
    public func remove(_ sequences: [Int64]) throws {
        guard !sequences.isEmpty else { return }
        do {
            try database.write { db in
                for sequence in sequences {
                    try db.execute(sql: "DELETE FROM report WHERE sequence = ?", arguments: [sequence])
                }
            }
        } catch {
            throw Self.wrap(error, "cannot remove delivered reports from the queue")
        }
    }

    /// Counts an attempt on a report that was not acknowledged.
    public func countAttempt(_ sequence: Int64) throws {
        do {
            try database.write { db in
                try db.execute(sql: "UPDATE report SET attempts = attempts + 1 WHERE sequence = ?", arguments: [sequence])
            }
        } catch {
            throw Self.wrap(error, "cannot update the queue")
        }
    }

    public func state() throws -> QueueState {
        do {
            return try database.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(fixTime), MAX(fixTime) FROM report")
                let count = row.map { $0[0] as Int } ?? 0
                let oldest = row.flatMap { $0[1] as Double? }
                let newest = row.flatMap { $0[2] as Double? }
                let (thinned, beyond) = counters.values
                return QueueState(
                    count: count, oldest: oldest.map(Date.init(timeIntervalSince1970:)),
                    newest: newest.map(Date.init(timeIntervalSince1970:)), thinned: thinned,
                    thinnedBeyondEpsilon: beyond)
            }
        } catch {
            throw Self.wrap(error, "cannot read the queue")
        }
    }

    static func report(_ row: Row) -> QueuedReport? {
        guard let kind = ReportKind(rawValue: row["kind"]) else { return nil }
        let point = ReportPoint(
            latitude: row["latitude"], longitude: row["longitude"], altitude: row["altitude"],
            horizontalAccuracy: row["horizontalAccuracy"], verticalAccuracy: row["verticalAccuracy"],
            speed: row["speed"], course: row["course"],
            timestamp: Date(timeIntervalSince1970: row["fixTime"]))
        return QueuedReport(
            sequence: row["sequence"], key: row["key"], kind: kind, point: point,
            enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]), attempts: row["attempts"])
    }

    /// Removes one point by the thinning rule (see the type's documentation).
    private func thin(_ db: Database) throws {
        let window = try Row.fetchAll(db, sql: "SELECT * FROM report ORDER BY sequence LIMIT 512").compactMap(Self.report)
        var best: (index: Int, error: Double)?
        for index in window.indices where window[index].kind == .track || window[index].kind == .heartbeat {
            let error: Double
            if index > 0, index + 1 < window.count {
                error = SynchronizedDistance.sed(
                    of: window[index].point, from: window[index - 1].point, to: window[index + 1].point)
            } else {
                error = .infinity
            }
            if error <= thinningEpsilon {
                best = (index, error)
                break
            }
            if best.map({ error < $0.error }) ?? true { best = (index, error) }
        }
        guard let best else {
            logger.warning("The report queue holds only arrivals and departures; it grows past its capacity")
            return
        }
        try db.execute(sql: "DELETE FROM report WHERE sequence = ?", arguments: [window[best.index].sequence])
        counters.add(beyond: best.error > thinningEpsilon)
        if best.error > thinningEpsilon {
            let off = best.error.isFinite ? "\(Int(best.error)) m" : "an end point"
            logger.warning("The report queue is full; removed a point off the thinned track by \(off)")
        }
    }
}

import CoreLocationEngine
import Foundation
import GRDB

/// How locationd starts an app again (issue 11, decision 0026): the executable the kernel named
/// for the app's process when it started a background service, its arguments, working directory
/// and the environment it needs to find the daemon, with a fingerprint of the file so that a
/// replaced or deleted executable is reported and never run.
public struct LaunchTarget: Codable, Hashable, Sendable {
    public var uid: UInt32
    public var appID: String
    public var executable: String
    public var arguments: [String]
    public var workingDirectory: String
    public var environment: [String: String]
    /// A systemd user unit named by the app's Info.plist (`CoreLocationRelaunchUnit`).
    public var unit: String?
    public var fingerprint: FileFingerprint
    /// Background App Refresh: false after `locationctl background off APP`.
    public var enabled: Bool
    public var registeredAt: Double

    public init(
        uid: UInt32, appID: String, executable: String, arguments: [String], workingDirectory: String,
        environment: [String: String], unit: String?, fingerprint: FileFingerprint, enabled: Bool = true,
        registeredAt: Double
    ) {
        self.uid = uid
        self.appID = appID
        self.executable = executable
        self.arguments = arguments
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.unit = unit
        self.fingerprint = fingerprint
        self.enabled = enabled
        self.registeredAt = registeredAt
    }
}

/// What identifies an executable file's content without reading it: device, inode, size and
/// modification time (nanoseconds). A rebuild, a replacement by rename or a copy changes it.
public struct FileFingerprint: Codable, Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modified: Int64
    public var owner: UInt32

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, owner: UInt32) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.owner = owner
    }
}

/// An event held for an app until its client acknowledges it (at least once to the client; the
/// sequence number makes it exactly once to the delegate).
public struct PendingEvent: Codable, Hashable, Sendable {
    public var sequence: UInt64
    /// `enter`, `exit` (regions), `visit`, `significant-change` (decision 0039).
    public var kind: String
    /// The event as the engine produced it: JSON of a `RegionNotice` (regions), a `Delivery`
    /// (significant changes) or a `Visit`.
    public var payload: Data
    public var created: Double
    public var expires: Double
    public var attempts: Int

    public init(sequence: UInt64, kind: String, payload: Data, created: Double, expires: Double, attempts: Int) {
        self.sequence = sequence
        self.kind = kind
        self.payload = payload
        self.created = created
        self.expires = expires
        self.attempts = attempts
    }
}

/// One line of an app's background history (launched, refused, expired, rate-limited…).
public struct BackgroundRecord: Codable, Hashable, Sendable {
    public var uid: UInt32
    public var appID: String
    public var at: Double
    public var what: String

    public init(uid: UInt32, appID: String, at: Double, what: String) {
        self.uid = uid
        self.appID = appID
        self.at = at
        self.what = what
    }
}

/// The daemon's background state: launch targets, pending events and the history, in the
/// daemon's database. Each call is one transaction; times are seconds since 1970 (they outlive
/// the process).
public final class BackgroundStore: Sendable {
    /// A moment of a pending event's write: inside its transaction with every statement done, or
    /// just after the commit.
    public enum WritePoint: String, Sendable, CaseIterable {
        case beforeCommit = "before-commit"
        case afterCommit = "after-commit"
    }

    public let database: LocationDatabase
    /// Called at each point of every pending event's write: the seam of the test of a daemon killed
    /// in the middle of a write (locationd's `CORELOCATION_FAULT_KILL_IN_WRITE`). Nil in production.
    let writeFault: (@Sendable (WritePoint) -> Void)?

    public init(database: LocationDatabase, writeFault: (@Sendable (WritePoint) -> Void)? = nil) {
        self.database = database
        self.writeFault = writeFault
    }

    static func createTables(_ db: Database) throws {
        try db.create(table: "launchTarget") { table in
            table.column("uid", .integer).notNull()
            table.column("appID", .text).notNull()
            table.column("target", .blob).notNull()
            table.column("enabled", .boolean).notNull()
            table.column("nextSequence", .integer).notNull()
            table.column("launches", .blob).notNull()
            table.primaryKey(["uid", "appID"])
        }
        try db.create(table: "pendingEvent") { table in
            table.column("uid", .integer).notNull()
            table.column("appID", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("kind", .text).notNull()
            table.column("payload", .blob).notNull()
            table.column("created", .double).notNull()
            table.column("expires", .double).notNull()
            table.column("attempts", .integer).notNull()
            table.primaryKey(["uid", "appID", "sequence"])
        }
        try db.create(table: "backgroundRecord") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("uid", .integer).notNull()
            table.column("appID", .text).notNull()
            table.column("at", .double).notNull()
            table.column("what", .text).notNull()
        }
    }

    /// The services the daemon keeps for an app while none of its processes runs (decision 0039):
    /// `significant-changes`, `visits`, comma-separated.
    static func addServices(_ db: Database) throws {
        try db.alter(table: "launchTarget") { table in
            table.add(column: "services", .text).notNull().defaults(to: "")
        }
    }

    // MARK: Launch targets

    /// Records (or refreshes) how to start the app; keeps its switch, sequence and launch history.
    public func register(_ target: LaunchTarget) throws {
        let data = try JSONEncoder().encode(target)
        try database.write("registering the launch target of \(target.appID)") { db in
            let existing = try Bool.fetchOne(
                db, sql: "SELECT enabled FROM launchTarget WHERE uid = ? AND appID = ?",
                arguments: [Int64(target.uid), target.appID])
            if existing != nil {
                try db.execute(
                    sql: "UPDATE launchTarget SET target = ? WHERE uid = ? AND appID = ?",
                    arguments: [data, Int64(target.uid), target.appID])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO launchTarget (uid, appID, target, enabled, nextSequence, launches)
                        VALUES (?, ?, ?, ?, 1, ?)
                        """,
                    arguments: [Int64(target.uid), target.appID, data, target.enabled, Data("[]".utf8)])
            }
        }
    }

    /// Every launch target, with its switch, sorted by uid and app.
    public func targets() throws -> [LaunchTarget] {
        try database.read("reading the launch targets") { db in
            try Row.fetchAll(db, sql: "SELECT target, enabled FROM launchTarget ORDER BY uid, appID").map { row in
                var target = try JSONDecoder().decode(LaunchTarget.self, from: row["target"] as Data)
                target.enabled = row["enabled"]
                return target
            }
        }
    }

    public func target(uid: UInt32, appID: String) throws -> LaunchTarget? {
        try targets().first { $0.uid == uid && $0.appID == appID }
    }

    /// Turns relaunching on or off; false when the app has no launch target.
    public func setEnabled(_ enabled: Bool, uid: UInt32, appID: String) throws -> Bool {
        try database.write("switching background relaunch of \(appID)") { db in
            try db.execute(
                sql: "UPDATE launchTarget SET enabled = ? WHERE uid = ? AND appID = ?",
                arguments: [enabled, Int64(uid), appID])
            return db.changesCount > 0
        }
    }

    /// The background services the app started and did not stop (`significant-changes`, `visits`).
    public func services(uid: UInt32, appID: String) throws -> Set<String> {
        try database.read("reading the background services of \(appID)") { db in
            let text = try String.fetchOne(
                db, sql: "SELECT services FROM launchTarget WHERE uid = ? AND appID = ?", arguments: [Int64(uid), appID])
            return Set((text ?? "").split(separator: ",").map(String.init))
        }
    }

    /// Records that the app started (`on`) or stopped a background service; false when the app
    /// has no launch target.
    @discardableResult
    public func setService(_ service: String, on: Bool, uid: UInt32, appID: String) throws -> Bool {
        try database.write("switching a background service of \(appID)") { db in
            guard
                let text = try String.fetchOne(
                    db, sql: "SELECT services FROM launchTarget WHERE uid = ? AND appID = ?",
                    arguments: [Int64(uid), appID])
            else { return false }
            var services = Set(text.split(separator: ",").map(String.init))
            if on { services.insert(service) } else { services.remove(service) }
            try db.execute(
                sql: "UPDATE launchTarget SET services = ? WHERE uid = ? AND appID = ?",
                arguments: [services.sorted().joined(separator: ","), Int64(uid), appID])
            return true
        }
    }

    /// The times of the app's recent launches (the newest 64).
    public func launches(uid: UInt32, appID: String) throws -> [Double] {
        try database.read("reading the launches of \(appID)") { db in
            guard let data = try Data.fetchOne(
                db, sql: "SELECT launches FROM launchTarget WHERE uid = ? AND appID = ?",
                arguments: [Int64(uid), appID])
            else { return [] }
            return try JSONDecoder().decode([Double].self, from: data)
        }
    }

    /// Records a launch: its time, and one more attempt on every pending event.
    public func recordLaunch(uid: UInt32, appID: String, at time: Double) throws {
        try database.write("recording a launch of \(appID)") { db in
            let data = try Data.fetchOne(
                db, sql: "SELECT launches FROM launchTarget WHERE uid = ? AND appID = ?", arguments: [Int64(uid), appID])
            var launches = try data.map { try JSONDecoder().decode([Double].self, from: $0) } ?? []
            launches.append(time)
            launches = Array(launches.suffix(64))
            try db.execute(
                sql: "UPDATE launchTarget SET launches = ? WHERE uid = ? AND appID = ?",
                arguments: [try JSONEncoder().encode(launches), Int64(uid), appID])
            try db.execute(
                sql: "UPDATE pendingEvent SET attempts = attempts + 1 WHERE uid = ? AND appID = ?",
                arguments: [Int64(uid), appID])
        }
    }

    // MARK: Pending events

    /// Stores an event and returns its sequence number (increasing per app, never reused). With
    /// `region`, the region's new state is stored in the same transaction (a crossing): a daemon
    /// killed at any moment restarts with both or neither, so it neither repeats the crossing nor
    /// loses it (decision 0039).
    public func append(
        uid: UInt32, appID: String, kind: String, payload: Data, created: Double, expires: Double,
        region: (stored: StoredRegion, appID: String)? = nil, beacon: (identifier: String, state: Int)? = nil
    ) throws -> UInt64 {
        let sequence = try database.write("storing a pending event of \(appID)") { db in
            if let region { try RegionStore.insert(region.stored, appID: region.appID, db) }
            if let beacon { try Self.setBeaconRegionState(beacon.state, uid: uid, appID: appID, identifier: beacon.identifier, db) }
            let next = try Int64.fetchOne(
                db, sql: "SELECT nextSequence FROM launchTarget WHERE uid = ? AND appID = ?",
                arguments: [Int64(uid), appID])
            guard let next else {
                throw StorageError(code: .invalidValue, message: "\(appID) has no launch target")
            }
            try db.execute(
                sql: "UPDATE launchTarget SET nextSequence = ? WHERE uid = ? AND appID = ?",
                arguments: [next + 1, Int64(uid), appID])
            try db.execute(
                sql: """
                    INSERT INTO pendingEvent (uid, appID, sequence, kind, payload, created, expires, attempts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 0)
                    """,
                arguments: [Int64(uid), appID, next, kind, payload, created, expires])
            writeFault?(.beforeCommit)
            return UInt64(next)
        }
        writeFault?(.afterCommit)
        return sequence
    }

    /// The app's pending events, oldest first.
    public func pending(uid: UInt32, appID: String) throws -> [PendingEvent] {
        try database.read("reading the pending events of \(appID)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, kind, payload, created, expires, attempts FROM pendingEvent
                    WHERE uid = ? AND appID = ? ORDER BY sequence
                    """,
                arguments: [Int64(uid), appID]
            ).map { row in
                PendingEvent(
                    sequence: UInt64(row["sequence"] as Int64), kind: row["kind"], payload: row["payload"],
                    created: row["created"], expires: row["expires"], attempts: row["attempts"])
            }
        }
    }

    /// The earliest expiry of a pending event (seconds since 1970), nil when none is pending.
    public func nextExpiry() throws -> Double? {
        try database.read("reading the next expiry") { db in
            try Double.fetchOne(db, sql: "SELECT MIN(expires) FROM pendingEvent")
        }
    }

    /// Apps with pending events, and how many each has.
    public func pendingCounts() throws -> [(uid: UInt32, appID: String, count: Int)] {
        try database.read("counting the pending events") { db in
            try Row.fetchAll(
                db, sql: "SELECT uid, appID, COUNT(*) AS n FROM pendingEvent GROUP BY uid, appID ORDER BY uid, appID"
            ).map { row in (UInt32(truncatingIfNeeded: row["uid"] as Int64), row["appID"] as String, row["n"] as Int) }
        }
    }

    /// The client acknowledged every event up to `sequence` (of `kinds` only, when given): they are
    /// forgotten. Returns how many.
    @discardableResult
    public func acknowledge(uid: UInt32, appID: String, through sequence: UInt64, kinds: [String]? = nil) throws -> Int {
        try database.write("acknowledging events of \(appID)") { db in
            var sql = "DELETE FROM pendingEvent WHERE uid = ? AND appID = ? AND sequence <= ?"
            var arguments: StatementArguments = [Int64(uid), appID, Int64(clamping: sequence)]
            if let kinds {
                sql += " AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))"
                arguments += StatementArguments(kinds)
            }
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    /// Drops the events whose time ran out, with a record each; returns them with their app.
    public func expire(now: Double) throws -> [(uid: UInt32, appID: String, event: PendingEvent)] {
        try database.write("expiring pending events") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT uid, appID, sequence, kind, payload, created, expires, attempts FROM pendingEvent
                    WHERE expires <= ? ORDER BY uid, appID, sequence
                    """,
                arguments: [now])
            var expired: [(uid: UInt32, appID: String, event: PendingEvent)] = []
            for row in rows {
                let uid = UInt32(truncatingIfNeeded: row["uid"] as Int64)
                let appID: String = row["appID"]
                let event = PendingEvent(
                    sequence: UInt64(row["sequence"] as Int64), kind: row["kind"], payload: row["payload"],
                    created: row["created"], expires: row["expires"], attempts: row["attempts"])
                expired.append((uid, appID, event))
                try Self.insertRecord(
                    db, BackgroundRecord(
                        uid: uid, appID: appID, at: now,
                        what: "expired event \(event.sequence) (\(event.kind)) after \(event.attempts) launch(es)"))
            }
            try db.execute(sql: "DELETE FROM pendingEvent WHERE expires <= ?", arguments: [now])
            return expired
        }
    }

    // MARK: History

    public func record(_ record: BackgroundRecord) throws {
        try database.write("recording background history") { db in try Self.insertRecord(db, record) }
    }

    /// The newest `limit` records, oldest first.
    public func records(limit: Int = 50) throws -> [BackgroundRecord] {
        try database.read("reading background history") { db in
            try Row.fetchAll(
                db, sql: "SELECT uid, appID, at, what FROM backgroundRecord ORDER BY id DESC LIMIT ?", arguments: [limit]
            ).reversed().map { row in
                BackgroundRecord(
                    uid: UInt32(truncatingIfNeeded: row["uid"] as Int64), appID: row["appID"], at: row["at"],
                    what: row["what"])
            }
        }
    }

    static func insertRecord(_ db: Database, _ record: BackgroundRecord) throws {
        try db.execute(
            sql: "INSERT INTO backgroundRecord (uid, appID, at, what) VALUES (?, ?, ?, ?)",
            arguments: [Int64(record.uid), record.appID, record.at, record.what])
        // Bounded: the newest 1000 lines.
        try db.execute(
            sql: "DELETE FROM backgroundRecord WHERE id <= (SELECT MAX(id) FROM backgroundRecord) - 1000")
    }
}

// MARK: Beacon regions (decision 0050)

extension BackgroundStore {
    static func addBeaconRegions(_ db: Database) throws {
        try db.create(table: "beaconRegion") { table in
            table.column("uid", .integer).notNull()
            table.column("appID", .text).notNull()
            table.column("identifier", .text).notNull()
            table.column("region", .blob).notNull()
            // The region's last state told to the app (0 unknown, 1 inside, 2 outside), stored with
            // the entry's or exit's pending event.
            table.column("state", .integer).notNull().defaults(to: 0)
            table.primaryKey(["uid", "appID", "identifier"])
        }
    }

    /// Keeps an app's beacon region (the caller's encoding), replacing one with the same identifier
    /// (its state unknown again).
    public func saveBeaconRegion(uid: UInt32, appID: String, identifier: String, region: Data) throws {
        try database.write("storing a beacon region of \(appID)") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO beaconRegion (uid, appID, identifier, region) VALUES (?, ?, ?, ?)",
                arguments: [Int64(uid), appID, identifier, region])
        }
    }

    public func removeBeaconRegion(uid: UInt32, appID: String, identifier: String) throws {
        try database.write("forgetting a beacon region of \(appID)") { db in
            try db.execute(
                sql: "DELETE FROM beaconRegion WHERE uid = ? AND appID = ? AND identifier = ?",
                arguments: [Int64(uid), appID, identifier])
        }
    }

    /// Keeps the state last told to the app of one of its beacon regions (in the process, without
    /// locationd; the daemon stores it with the entry's or exit's pending event instead).
    public func setBeaconRegionState(uid: UInt32, appID: String, identifier: String, state: Int) throws {
        try database.write("storing a beacon region's state for \(appID)") { db in
            try Self.setBeaconRegionState(state, uid: uid, appID: appID, identifier: identifier, db)
        }
    }

    static func setBeaconRegionState(_ state: Int, uid: UInt32, appID: String, identifier: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE beaconRegion SET state = ? WHERE uid = ? AND appID = ? AND identifier = ?",
            arguments: [state, Int64(uid), appID, identifier])
    }

    /// The app's beacon regions and their stored states, by identifier.
    public func beaconRegions(uid: UInt32, appID: String) throws -> [(region: Data, state: Int)] {
        try database.read("reading the beacon regions of \(appID)") { db in
            try Row.fetchAll(
                db, sql: "SELECT region, state FROM beaconRegion WHERE uid = ? AND appID = ? ORDER BY identifier",
                arguments: [Int64(uid), appID]
            ).map { ($0["region"], $0["state"]) }
        }
    }
}

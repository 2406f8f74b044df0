import CoreLocationNetwork
import Foundation
import GRDB

/// An offline cell table: an SQLite file (GRDB) made by `CellTableImporter` from OpenCelliD's CSV layout, looked up
/// by (radio?, MCC, MNC, area, cell id). One connection per file, read-only.
///
/// Layout (format 1): `cells(mcc, mnc, area, cell, radio, lat, lon, range, samples, updated)` with the primary key
/// `(mcc, mnc, area, cell, radio)` on a `WITHOUT ROWID` table (the key is the index: one B-tree, no second copy)
/// and `meta(key, value)` with `format = 1`.
public final class CellTable: Sendable {
    public static let formatVersion = 1
    public let path: String
    private let queue: DatabaseQueue

    /// Opens a table made by `CellTableImporter`.
    ///
    /// - Throws: `CellError(.databaseMissing)` when the file does not exist, `.databaseInvalid` when it is not an
    ///   SQLite file, is truncated (shorter than its page count says), or is another database.
    public init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CellError(.databaseMissing, "\(path): no such cell table (make one: locationctl cells import FILE.csv)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CellError(.databaseMissing, "\(path): cannot be read")
        }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw CellError(.databaseInvalid, "\(path): not a cell table (not an SQLite file)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "cells"
        // A look-up descends ~5 pages of a B-tree far larger than SQLite's 2 MB page cache (10^7 cells: ~540 MB).
        // Mapped, the descent reads the kernel's page cache in place instead of a pread(2) and a copy per page
        // (10^7 cells, warm: p50 11.1 -> 9.4 us, p99 13.5 -> 10.9 us; Benchmarks/cells). A fresh import is renamed
        // into place and an import into the table only grows it (no VACUUM), so a mapping never sees the file
        // truncated under it (SQLite's one hazard of memory-mapped I/O).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 4294967296") }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in
                let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                guard fileSize >= pageSize * pageCount else {
                    throw CellError(
                        .databaseInvalid, "\(path): truncated (\(fileSize) bytes of \(pageSize * pageCount))")
                }
                guard try db.tableExists("meta"), try db.tableExists("cells"),
                    let format = try Int.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
                else { throw CellError(.databaseInvalid, "\(path): an SQLite file, but not a cell table") }
                guard format == Self.formatVersion else {
                    throw CellError(.databaseInvalid, "\(path): cell table format \(format), expected \(Self.formatVersion)")
                }
            }
        } catch let error as CellError {
            throw error
        } catch {
            throw CellError(.databaseInvalid, "\(path): not a usable cell table: \(error)", underlying: error)
        }
    }

    /// Where the table puts `cell`, nil when it does not know it. With the radio unknown, the row with the most
    /// samples among the radios that share the numbers.
    ///
    /// - Throws: `CellError(.databaseInvalid)` when the file is damaged where the cell is.
    public func lookup(_ cell: CellIdentity) throws -> CellLocation? {
        do {
            // inDatabase, not read: the connection is read-only already, and `read` wraps every call in
            // `PRAGMA query_only` on and off (two more statements per look-up).
            return try queue.inDatabase { db in
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT radio, lat, lon, range, samples FROM cells
                        WHERE mcc = ? AND mnc = ? AND area = ? AND cell = ? ORDER BY samples DESC
                        """)
                let rows = try Row.fetchCursor(statement, arguments: [cell.mcc, cell.mnc, cell.area, cell.cellID])
                while let row = try rows.next() {
                    guard let radio = CellRadio(rawValue: row[0]) else { continue }
                    if let wanted = cell.radio, wanted != radio { continue }
                    let samples: Int = row[4]
                    return CellLocation(
                        latitude: row[1], longitude: row[2],
                        horizontalAccuracy: CellAccuracy.accuracy(range: row[3], samples: samples), radio: radio,
                        samples: samples)
                }
                return nil
            }
        } catch {
            throw CellError(.databaseInvalid, "\(path): damaged: \(error)", underlying: error)
        }
    }

    /// Rows in the table.
    public func count() throws -> Int {
        do {
            return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM cells") ?? 0 }
        } catch {
            throw CellError(.databaseInvalid, "\(path): damaged: \(error)", underlying: error)
        }
    }

    /// The default place: `CORELOCATION_CELL_TABLE`, else `$XDG_DATA_HOME/corelocation/cells.sqlite`
    /// (`~/.local/share/corelocation/cells.sqlite`), for root `/var/lib/corelocation/cells.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["CORELOCATION_CELL_TABLE"], !path.isEmpty { return path }
        if getuid() == 0 { return "/var/lib/corelocation/cells.sqlite" }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return data + "/corelocation/cells.sqlite"
    }
}

import CoreLocationNetwork
import Foundation
import GRDB

/// What an import did.
public struct CellImportReport: Sendable, Hashable, Codable {
    /// Rows written (new or replacing an older row of the same cell).
    public var imported = 0
    /// Rows for a cell the table already had from a more recent update (kept as it was).
    public var olderDuplicates = 0
    /// Lines that are not cells (bad columns or values); never fatal.
    public var skipped = 0
    /// The first few skipped lines: "line N: reason".
    public var examples: [String] = []
    /// Something that ended the input early (a truncated .gz), with what came before it kept.
    public var warning: String?
    /// Rows in the table afterwards.
    public var total = 0
}

/// Imports a cell CSV in OpenCelliD's layout (plain or gzip-compressed, told by its magic bytes) into a
/// `CellTable` file: a new file is built beside the target and renamed into place when complete; an existing
/// table is updated in place (a cell already there is replaced by a row at least as recent). Nothing is
/// downloaded.
public enum CellTableImporter {
    static let batch = 100_000

    public static func importCSV(from csvPath: String, into tablePath: String) throws -> CellImportReport {
        guard let input = FileHandle(forReadingAtPath: csvPath) else {
            throw CellError(.importFailed, "\(csvPath): cannot be read")
        }
        let magic = (try? input.read(upToCount: 2)) ?? Data()
        try? input.seek(toOffset: 0)
        var gzip: Process?
        let reader: FileHandle
        if magic == Data([0x1F, 0x8B]) {
            try? input.close()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/gzip")
            process.arguments = ["-dc", "--", csvPath]
            let pipe = Pipe()
            let errors = Pipe()
            process.standardOutput = pipe
            process.standardError = errors
            do { try process.run() } catch {
                throw CellError(.importFailed, "\(csvPath): gzip could not be run: \(error)")
            }
            gzip = process
            reader = pipe.fileHandleForReading
        } else {
            reader = input
        }
        defer { try? reader.close() }

        let fresh = !FileManager.default.fileExists(atPath: tablePath)
        let workPath = fresh ? tablePath + ".partial" : tablePath
        if fresh { try? FileManager.default.removeItem(atPath: workPath) }
        if !fresh { _ = try CellTable(path: tablePath) }  // refuse to write into something that is not a table
        var report = CellImportReport()
        do {
            var configuration = Configuration()
            configuration.label = "cells-import"
            let queue = try DatabaseQueue(path: workPath, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                if fresh {
                    try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                }
                // Rows come in the CSV's order, so each insert lands on a random leaf of the key's B-tree: with the
                // default 2 MB cache, past ~10^6 cells most inserts evict a dirty page. 256 MB, for the import only,
                // keeps the upper levels and many leaves in memory (10^7 cells: 86 s -> 72-83 s; Benchmarks/cells).
                try db.execute(sql: "PRAGMA cache_size = -262144")
                try createSchema(db)
                try db.execute(sql: "BEGIN")
                let insert = try db.makeStatement(
                    sql: """
                        INSERT INTO cells (mcc, mnc, area, cell, radio, lat, lon, range, samples, updated)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (mcc, mnc, area, cell, radio) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
                        range = excluded.range, samples = excluded.samples, updated = excluded.updated
                        WHERE excluded.updated >= cells.updated
                        """)
                var lineNumber = 0
                var pending = 0
                try forEachLine(reader) { line in
                    lineNumber += 1
                    if lineNumber == 1, line.starts(with: "radio,".utf8) { return }
                    if line.isEmpty { return }
                    switch CellCSVRow.parse(line) {
                    case .success(let row):
                        try insert.execute(arguments: [
                            row.mcc, row.mnc, row.area, row.cellID, row.radio.rawValue, row.latitude, row.longitude,
                            row.range, row.samples, row.updated,
                        ])
                        if db.changesCount > 0 { report.imported += 1 } else { report.olderDuplicates += 1 }
                        pending += 1
                        if pending >= batch {
                            try db.execute(sql: "COMMIT; BEGIN")
                            pending = 0
                        }
                    case .failure(let problem):
                        report.skipped += 1
                        if report.examples.count < 10 { report.examples.append("line \(lineNumber): \(problem)") }
                    }
                }
                try db.execute(sql: "COMMIT")
                report.total = try Int.fetchOne(db, sql: "SELECT count(*) FROM cells") ?? 0
            }
            try queue.close()
        } catch let error as CellError {
            throw error
        } catch {
            if fresh { try? FileManager.default.removeItem(atPath: workPath) }
            throw CellError(.importFailed, "\(tablePath): \(error)", underlying: error)
        }
        if let gzip, let status = Self.exitStatus(of: gzip), status != 0 {
            report.warning = "\(csvPath): the compressed file ends early (gzip status \(status));"
                + " the rows before the damage were imported"
        }
        if fresh {
            // rename(2): atomic, and (unlike FileManager.replaceItemAt on Linux) fine when the target is absent.
            guard rename(workPath, tablePath) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: workPath)
                throw CellError(.importFailed, "\(tablePath): cannot be written: \(reason)")
            }
        }
        return report
    }

    static func createSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID;
                INSERT OR IGNORE INTO meta (key, value) VALUES ('format', \(CellTable.formatVersion));
                CREATE TABLE IF NOT EXISTS cells (
                    mcc INTEGER NOT NULL, mnc INTEGER NOT NULL, area INTEGER NOT NULL, cell INTEGER NOT NULL,
                    radio INTEGER NOT NULL, lat REAL NOT NULL, lon REAL NOT NULL, range INTEGER NOT NULL,
                    samples INTEGER NOT NULL, updated INTEGER NOT NULL,
                    PRIMARY KEY (mcc, mnc, area, cell, radio)
                ) WITHOUT ROWID;
                """)
    }

    /// Calls `body` with each line (without its newline), reading 1 MiB at a time.
    static func forEachLine(_ handle: FileHandle, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var carry: [UInt8] = []
        while true {
            guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else { break }
            try chunk.withUnsafeBytes { bytes in
                var start = 0
                for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
                    if carry.isEmpty {
                        try body(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                    } else {
                        carry.append(contentsOf: bytes[start..<index])
                        try carry.withUnsafeBytes { try body($0) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    start = index + 1
                }
                carry.append(contentsOf: bytes[start...])
            }
        }
        if !carry.isEmpty { try carry.withUnsafeBytes { try body($0) } }
    }

    /// gzip's exit status once it has exited (its output was read to the end), or nil if that cannot be known.
    ///
    /// `waitid(…, WNOWAIT)` waits for the exit and leaves the child for Foundation to reap. Foundation's own
    /// `isRunning` changes on a dispatch queue, which a caller on a busy cooperative pool may be holding:
    /// polling it ran out in a loaded test run, and `terminationStatus` of a process Foundation still thinks
    /// is running traps (a crash, not an error).
    static func exitStatus(of process: Process) -> Int32? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
            if errno == EINTR { continue }
            // ECHILD: Foundation reaped it first; its status is Foundation's once its handler has run.
            for _ in 0..<1000 where process.isRunning { usleep(10_000) }
            return process.isRunning ? nil : process.terminationStatus
        }
        return info.si_code == CLD_EXITED ? info._sifields._sigchld.si_status : 128 + info._sifields._sigchld.si_status
    }

}

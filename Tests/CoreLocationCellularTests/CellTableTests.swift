import CoreLocationCellular
import CoreLocationNetwork
import CoreLocationGPSDTestSupport
import Foundation
import Testing

enum CellFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static var csv: String { directory.appendingPathComponent("cells.csv").path }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cells-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// `CellTableImporter` + `CellTable` on the committed CSV fixture (Fixtures/README.md says what each line is).
struct CellTableTests {
    @Test func importsGoodRowsAndCountsBadOnes() throws {
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = scratch.appendingPathComponent("cells.sqlite").path
        let report = try CellTableImporter.importCSV(from: CellFixtures.csv, into: path)
        #expect(report.imported == 8)
        #expect(report.olderDuplicates == 1)
        #expect(report.skipped == 7)
        #expect(report.total == 8)
        #expect(report.examples.first == "line 10: radio is not GSM, UMTS, CDMA, LTE or NR")
        #expect(report.examples.contains("line 12: 4 column(s), at least 10 needed"))
        #expect(report.examples.contains("line 13: bad lat"))
        #expect(report.warning == nil)
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))

        let table = try CellTable(path: path)
        #expect(try table.count() == 8)
        // LTE: found by its TAC (the 3GPP string's LAC is 0); the older duplicate (13.0, 52.0) did not replace it.
        let lte = try #require(try table.lookup(CellIdentity(modemManager: "262,01,0,1A60103,2B67", radio: .lte)))
        #expect(lte.latitude == 52.5170)
        #expect(lte.longitude == 13.3889)
        #expect(lte.horizontalAccuracy == 1_000)  // range 800 m raised to the 1 km floor
        #expect(lte.radio == .lte)
        // GSM by LAC: range 1200 m kept.
        let gsm = try #require(try table.lookup(CellIdentity(modemManager: "262,01,1A2B,4E21,0")))
        #expect(gsm.latitude == 52.518)
        #expect(gsm.horizontalAccuracy == 1_200)
        // Same numbers in another country: another cell.
        let us = try #require(try table.lookup(CellIdentity(modemManager: "310,410,0,1A60103,2B67")))
        #expect(us.longitude == -122.4194)
        // NR: 36-bit cell id; range 150 km capped at 50 km.
        let nr = try #require(try table.lookup(CellIdentity(modemManager: "440,10,0,FFFFFFFFF,1", radio: .nr)))
        #expect(nr.horizontalAccuracy == 50_000)
        // One sample, range 0: the unknown-range accuracy.
        let london = try #require(try table.lookup(CellIdentity(modemManager: "234,15,FFFD,C8")))
        #expect(london.horizontalAccuracy == 10_000)
        // The radio given must match: the UMTS cell's numbers asked as GSM are not that cell.
        #expect(try table.lookup(CellIdentity(modemManager: "262,02,321,C700D1,0", radio: .gsm)) == nil)
        #expect(try table.lookup(CellIdentity(modemManager: "262,02,321,C700D1,0", radio: .umts)) != nil)
        // A cell no table knows.
        #expect(try table.lookup(CellIdentity(modemManager: "262,01,1A2B,4E23,0")) == nil)
    }

    @Test func importsGzipAndMergesIntoAnExistingTable() throws {
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let gz = scratch.appendingPathComponent("cells.csv.gz").path
        let compress = ChildProcess()
        compress.executableURL = URL(fileURLWithPath: "/bin/sh")
        compress.arguments = ["-c", "gzip -c '\(CellFixtures.csv)' > '\(gz)'"]
        try compress.run()
        #expect(ChildProcess.waitExited(compress.processIdentifier, timeout: 60))
        let path = scratch.appendingPathComponent("cells.sqlite").path
        #expect(try CellTableImporter.importCSV(from: gz, into: path).imported == 8)
        // Again into the same table: every row is there already, as recent: rewritten, none added.
        let again = try CellTableImporter.importCSV(from: CellFixtures.csv, into: path)
        #expect(again.total == 8)
        #expect(again.skipped == 7)

        // A truncated .gz: the rows before the damage are kept, and the report says so.
        let data = try Data(contentsOf: URL(fileURLWithPath: gz))
        let cut = scratch.appendingPathComponent("cut.csv.gz").path
        try data.prefix(data.count - 12).write(to: URL(fileURLWithPath: cut))
        let partial = try CellTableImporter.importCSV(
            from: cut, into: scratch.appendingPathComponent("cut.sqlite").path)
        #expect(partial.warning?.contains("ends early") == true)
    }

    @Test func refusesMissingCorruptTruncatedAndForeignFiles() throws {
        let scratch = try CellFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        expectCellError(.databaseMissing) {
            _ = try CellTable(path: scratch.appendingPathComponent("none.sqlite").path)
        }
        let garbage = scratch.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: garbage)
        expectCellError(.databaseInvalid) { _ = try CellTable(path: garbage.path) }

        let path = scratch.appendingPathComponent("cells.sqlite").path
        _ = try CellTableImporter.importCSV(from: CellFixtures.csv, into: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = scratch.appendingPathComponent("truncated.sqlite")
        try data.prefix(data.count / 2).write(to: truncated)
        expectCellError(.databaseInvalid) { _ = try CellTable(path: truncated.path) }
        // Importing into a file that is not a cell table refuses to touch it.
        expectCellError(.databaseInvalid) {
            _ = try CellTableImporter.importCSV(from: CellFixtures.csv, into: garbage.path)
        }
        #expect(try Data(contentsOf: garbage) == Data(repeating: 0x41, count: 4096))
    }
}

/// Expects `body` to throw a `CellError` with `code`.
func expectCellError(_ code: CellError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    let error = #expect(throws: CellError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}

struct ModemSourceURLTests {
    @Test func modemURLs() {
        #expect(ModemSourceURL("modem:") == ModemSourceURL("modem"))
        #expect(ModemSourceURL("modem:")?.gnss == true)
        #expect(ModemSourceURL("modem:")?.cell == true)
        #expect(ModemSourceURL("modem:gnss")?.cell == false)
        #expect(ModemSourceURL("MODEM:cell")?.gnss == false)
        #expect(ModemSourceURL("modem:wifi") == nil)
        #expect(ModemSourceURL("gpsd://localhost") == nil)
    }
}

import Foundation
import Testing

/// `locationctl cells import` and `lookup` on the committed cell fixture (Tests/CoreLocationCellularTests/Fixtures).
@Suite struct CellsCommandTests {
    static let csv = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CoreLocationCellularTests/Fixtures/cells.csv").standardized.path

    @Test func importCountsBadRowsAndLookupAnswers() async throws {
        let sandbox = try Sandbox()
        let table = sandbox.directory.appendingPathComponent("data/cells.sqlite").path
        let extra = ["CORELOCATION_CELL_TABLE": table]
        let imported = try await sandbox.locationctl("cells", "import", Self.csv, extra: extra)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("Imported 8 cell(s) into \(table)"), "\(imported)")
        #expect(imported.stdout.contains("Skipped 7 bad line(s)"), "\(imported)")
        #expect(imported.stdout.contains("line 10: radio is not GSM, UMTS, CDMA, LTE or NR"), "\(imported)")

        let found = try await sandbox.locationctl("cells", "lookup", "262,01,0,1A60103,2B67", "--radio", "lte", extra: extra)
        #expect(found.status == 0, "\(found)")
        #expect(found.stdout.contains("52.517000, 13.388900 ±1000 m (LTE, 12 samples)"), "\(found)")

        let unknown = try await sandbox.locationctl("cells", "lookup", "262,01,1A2B,4E23,0", extra: extra)
        #expect(unknown.status == 1, "\(unknown)")
        #expect(unknown.stderr.contains("not in"), "\(unknown)")
        let malformed = try await sandbox.locationctl("cells", "lookup", "000,01,1A2B,4E23,0", extra: extra)
        #expect(malformed.status == 1, "\(malformed)")
        #expect(malformed.stderr.contains("MCC 000"), "\(malformed)")

        // A corrupt table: a clear error, exit 1.
        try Data(repeating: 0, count: 100).write(to: URL(fileURLWithPath: table))
        let corrupt = try await sandbox.locationctl("cells", "lookup", "262,01,0,1A60103,2B67", extra: extra)
        #expect(corrupt.status == 1, "\(corrupt)")
        #expect(corrupt.stderr.contains("not a cell table"), "\(corrupt)")
    }
}

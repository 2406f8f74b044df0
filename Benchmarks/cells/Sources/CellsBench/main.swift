import CellTableLib
import CoreLocationNetwork
import Foundation

// CellsBench CSV TABLE KEYS: imports CSV into TABLE (a new file), then looks up every key of KEYS (lines
// "RADIO,MCC,MNC,AREA,CELL", some absent from the table) twice — the first pass warms the page cache, the second is
// timed one look-up at a time. Prints one JSON object.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: CellsBench CSV TABLE KEYS\n".utf8))
    exit(2)
}
let (csv, tablePath, keysPath) = (arguments[1], arguments[2], arguments[3])
try? FileManager.default.removeItem(atPath: tablePath)

let clock = ContinuousClock()
let importStart = clock.now
let report = try CellTableImporter.importCSV(from: csv, into: tablePath)
let importSeconds = (clock.now - importStart) / .seconds(1)
let size = (try FileManager.default.attributesOfItem(atPath: tablePath)[.size] as? Int) ?? 0

let table = try CellTable(path: tablePath)
let keys: [CellIdentity] = try String(contentsOfFile: keysPath, encoding: .utf8).split(separator: "\n").compactMap {
    let f = $0.split(separator: ",")
    guard f.count == 5, let radio = CellRadio(csvName: f[0]), let mcc = Int(f[1]), let mnc = Int(f[2]),
        let area = Int(f[3]), let cell = Int(f[4])
    else { return nil }
    return radio.usesTrackingArea
        ? CellIdentity(radio: radio, mcc: mcc, mnc: mnc, lac: 0, cellID: cell, tac: area)
        : CellIdentity(radio: radio, mcc: mcc, mnc: mnc, lac: area, cellID: cell)
}
var found = 0
var checksum = 0.0
for key in keys { _ = try table.lookup(key) }  // warm
var nanoseconds: [Double] = []
nanoseconds.reserveCapacity(keys.count)
for key in keys {
    let start = clock.now
    let answer = try table.lookup(key)
    nanoseconds.append((clock.now - start) / .nanoseconds(1))
    if let answer {
        found += 1
        checksum += answer.latitude + answer.longitude
    }
}
nanoseconds.sort()
func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
let result: [String: Double] = [
    "rows": Double(report.imported), "skipped": Double(report.skipped), "import_s": importSeconds,
    "rows_per_s": Double(report.imported) / importSeconds, "bytes": Double(size),
    "bytes_per_million": Double(size) / Double(max(report.imported, 1)) * 1e6,
    "lookups": Double(keys.count), "found": Double(found), "checksum": checksum,
    "p50_ns": percentile(nanoseconds, 0.5), "p99_ns": percentile(nanoseconds, 0.99),
]
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
print(String(decoding: try encoder.encode(result), as: UTF8.self))

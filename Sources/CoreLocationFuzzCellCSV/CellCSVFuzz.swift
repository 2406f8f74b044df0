import CoreLocationCellular
import CoreLocationFuzzSupport
import CoreLocationNetwork
import Foundation

// A libFuzzer target for the cell table's CSV rows (OpenCelliD's layout, `CellCSVRow.parse`), the parser
// `locationctl cells import` runs on every line of a file downloaded from elsewhere (docs/decisions/0034).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzCellCSV
//   .build/release/CoreLocationFuzzCellCSV -max_len=1024 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: a few lines of a CSV file. They are cut at LF, as `CellTableImporter` cuts them (a CR before the LF stays in
// the line, as in a file written on Windows), and each line is parsed.

/// Checks what no line may break: it is a record or a `Problem`; a record is in the documented ranges (the values
/// the table's key and a fix are made from); written back as a CSV row and parsed again it is the same record.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    var start = 0
    for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "\n") {
        check(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index])))
        start = index + 1
    }
}

func check(_ line: UnsafeRawBufferPointer) {
    guard case .success(let record) = CellCSVRow.parse(line) else { return }
    precondition((1...999).contains(record.mcc) && (0...999).contains(record.mnc), "network \(record)")
    precondition((0...0xFFFF_FFFF).contains(record.area), "area \(record.area)")
    precondition((1...CellIdentity.maximumCellID).contains(record.cellID), "cell \(record.cellID)")
    precondition(record.latitude.isFinite && abs(record.latitude) <= 90, "latitude \(record.latitude)")
    precondition(record.longitude.isFinite && abs(record.longitude) <= 180, "longitude \(record.longitude)")
    precondition(record.range >= 0 && record.samples >= 0 && record.updated >= 0)
    let accuracy = CellAccuracy.accuracy(range: record.range, samples: record.samples)
    precondition(accuracy >= CellAccuracy.minimum && accuracy <= CellAccuracy.maximum, "accuracy \(accuracy)")
    let row = "\(record.radio.csvName),\(record.mcc),\(record.mnc),\(record.area),\(record.cellID),0,"
        + "\(record.longitude),\(record.latitude),\(record.range),\(record.samples),1,0,\(record.updated),0"
    let again = Array(row.utf8).withUnsafeBytes { CellCSVRow.parse($0) }
    guard case .success(let reparsed) = again else { preconditionFailure("'\(row)' does not parse: \(again)") }
    precondition(reparsed == record, "\(record) -> '\(row)' -> \(reparsed)")
}

// The entry point (CoreLocationFuzzSupport): libFuzzer's driver under -DFUZZING, a replayer of files otherwise.
@main
enum FuzzEntry {
    static func main() {
        exit(FuzzDriver.main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
            fuzzOne(UnsafeBufferPointer(start: data, count: size))
            return 0
        })
    }
}

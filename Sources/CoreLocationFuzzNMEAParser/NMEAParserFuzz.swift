// libFuzzer target for the NMEA sentence parser and the epoch assembler.
//
// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see scripts/fuzz.sh), it runs libFuzzer's
// driver; a plain build replays the files given as arguments (a crash input, a corpus) through the same
// checks (CoreLocationFuzzSupport).
import CoreLocationFuzzSupport
import Foundation
import CoreLocationEngine
import CoreLocationSources

/// Decodes every line of `data` and feeds the sentences to an assembler; traps if any fix breaks an
/// invariant (a bogus position must never come out, whatever the input).
func fuzzOne(_ data: UnsafeRawBufferPointer) {
    var assembler = NMEAEpochAssembler()
    var parser = NMEAParser()
    let received = Date(timeIntervalSince1970: 1_767_225_600)
    var start = 0
    for index in 0...data.count where index == data.count || data[index] == 0x0A {
        let line = UnsafeRawBufferPointer(rebasing: data[start..<index])
        start = index + 1
        guard let sentence = parser.parse(line) else { continue }
        for event in assembler.handle(sentence, receivedAt: received) { check(event) }
    }
    if let event = assembler.finish(receivedAt: received) { check(event) }
    let statistics = parser.statistics
    precondition(statistics.decoded + statistics.ignored + statistics.dropped <= data.count + 1, "line accounting")
}

func check(_ event: NMEAEpochEvent) {
    guard case .fix(let fix) = event else { return }
    precondition(fix.latitude.isFinite && abs(fix.latitude) <= 90, "latitude \(fix.latitude)")
    precondition(fix.longitude.isFinite && abs(fix.longitude) <= 180, "longitude \(fix.longitude)")
    precondition(fix.horizontalAccuracy.isFinite && fix.horizontalAccuracy >= 0, "horizontal accuracy")
    precondition(fix.altitude.isFinite && fix.ellipsoidalAltitude.isFinite, "altitude")
    precondition(fix.speed.isFinite && fix.course.isFinite && fix.courseAccuracy.isFinite, "velocity")
    precondition(fix.course == -1 || (0..<360).contains(fix.course), "course \(fix.course)")
    precondition(fix.timestamp.timeIntervalSince1970.isFinite, "timestamp")
}

// The entry point (CoreLocationFuzzSupport): libFuzzer's driver under -DFUZZING, a replayer of files otherwise.
@main
enum FuzzEntry {
    static func main() {
        exit(FuzzDriver.main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
            fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        })
    }
}

import CoreLocationFuzzSupport
import Foundation
import CoreLocationSources

// A libFuzzer target for the GPX parser (`GPXParser.route(from:name:)`, its public entry point).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzGPX
//   .build/release/CoreLocationFuzzGPX -max_total_time=300 CORPUS_DIR        (see scripts/fuzz.sh)
//
// A plain `swift build` makes a replayer instead: `CoreLocationFuzzGPX FILE…` runs each file through the
// same checks, so a crash found by the fuzzer replays without libFuzzer.

/// Parses `bytes` and checks what no input may break: it either throws a `GPXError` or gives points
/// that are real coordinates, with offsets that start at 0 and never decrease.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let route: SimulatedRoute
    do {
        route = try GPXParser().route(from: Data(buffer: bytes), name: "fuzz")
    } catch is GPXError {
        return
    } catch {
        preconditionFailure("the parser threw something other than a GPXError: \(error)")
    }
    precondition(route.offsets.count == route.points.count, "one offset per point")
    precondition(route.offsets.first.map { $0 == 0 } ?? true, "the first offset is 0")
    for (a, b) in zip(route.offsets, route.offsets.dropFirst()) { precondition(b >= a, "offsets decrease") }
    for point in route.points {
        precondition(point.latitude.isFinite && abs(point.latitude) <= 90, "latitude out of range")
        precondition(point.longitude.isFinite && abs(point.longitude) <= 180, "longitude out of range")
        if let course = point.course { precondition(course >= 0 && course < 360, "course out of [0, 360)") }
        if let speed = point.speed { precondition(speed >= 0, "negative speed") }
    }
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

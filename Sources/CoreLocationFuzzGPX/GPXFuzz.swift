import Foundation
import CoreLocationSources

// A libFuzzer target for the GPX parser (`GPXParser.route(from:name:)`, its public entry point).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzGPX
//   .build/release/CoreLocationFuzzGPX -max_total_time=300 CORPUS_DIR        (see scripts/fuzz/gpx.sh)
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

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's entry point as `<Module>_main` and aliases `main` to it, which
    /// would shadow libFuzzer's `main`; so the entry point hands over to libFuzzer's driver itself.
    @_cdecl("CoreLocationFuzzGPX_main")
    public func fuzzMain(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in
            fuzzOne(UnsafeBufferPointer(start: data, count: size))
            return 0
        }
    }
#else
    @main
    enum GPXReplay {
        static func main() {
            var count = 0
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                    continue
                }
                data.withUnsafeBytes { fuzzOne($0.bindMemory(to: UInt8.self)) }
                count += 1
            }
            // An executable, not library code: the replay result goes to standard error.
            FileHandle.standardError.write(Data("replayed \(count) input(s) without a failure\n".utf8))
        }
    }
#endif

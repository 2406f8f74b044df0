// libFuzzer target for the NMEA sentence parser and the epoch assembler.
//
// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see scripts/fuzz-run.sh), this file
// runs libFuzzer's driver; a plain build gets a normal `main` that replays the files given as
// arguments (a crash input, a corpus) through the same checks.
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

#if FUZZING
    // SwiftPM links executables with `main` aliased to `<Module>_main`, which keeps libFuzzer's own `main`
    // out of the link; so this entry point hands over to libFuzzer's driver itself.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    @_cdecl("CoreLocationFuzzNMEAParser_main")
    func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
            guard let data else { return 0 }
            fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    }
#else
    @main
    enum NMEAParserFuzzReplay {
        static func main() throws {
            let paths = CommandLine.arguments.dropFirst()
            for path in paths {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                bytes.withUnsafeBytes { fuzzOne($0) }
            }
            FileHandle.standardError.write(Data("replayed \(paths.count) input(s) without a crash\n".utf8))
        }
    }
#endif

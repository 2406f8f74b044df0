import Foundation
import CoreLocationSources

// A libFuzzer target for the gpsd JSON decoder and the TPV → Fix conversion.
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzGPSDJSON
//   .build/release/CoreLocationFuzzGPSDJSON -max_total_time=300 CORPUS_DIR     (see scripts/fuzz/gpsd-json.sh)
//
// A plain `swift build` makes a replayer instead: `CoreLocationFuzzGPSDJSON FILE…` runs each file through the
// same checks, so a crash found by the fuzzer replays in the debugger without libFuzzer.

/// Feeds `bytes` whole and drip-fed, and checks what no input may break: both give the same
/// messages, and a fix is never invented (finite, in range, non-negative accuracy).
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    var whole = GPSDDecoder()
    let messages = whole.feed(bytes)
    var split = GPSDDecoder()
    var again: [GPSDMessage] = []
    let cut = bytes.count / 2
    again += split.feed(UnsafeBufferPointer(rebasing: bytes[0..<cut]))
    again += split.feed(UnsafeBufferPointer(rebasing: bytes[cut...]))
    precondition(messages == again, "chunking changed the decoded messages")
    for message in messages {
        guard case .tpv(let tpv) = message, let fix = tpv.fix(receivedAt: Date(timeIntervalSince1970: 0)) else {
            continue
        }
        precondition(fix.latitude.isFinite && abs(fix.latitude) <= 90, "latitude out of range")
        precondition(fix.longitude.isFinite && abs(fix.longitude) <= 180, "longitude out of range")
        precondition(fix.horizontalAccuracy >= 0, "a fix without a usable horizontal accuracy")
        precondition(fix.isFromAccessory && !fix.isSimulated)
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        fuzzOne(UnsafeBufferPointer(start: data, count: size))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's entry point as `<Target>_main` and aliases `main` to it, which
    /// would shadow libFuzzer's `main`; so the entry point hands over to libFuzzer's driver itself.
    @_cdecl("CoreLocationFuzzGPSDJSON_main")
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
    enum GPSDJSONReplay {
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

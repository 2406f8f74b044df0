import CoreLocationFuzzSupport
import Foundation
import CoreLocationSources

// A libFuzzer target for the gpsd JSON decoder and the TPV → Fix conversion.
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzGPSDJSON
//   .build/release/CoreLocationFuzzGPSDJSON -max_total_time=300 CORPUS_DIR     (see scripts/fuzz.sh)
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

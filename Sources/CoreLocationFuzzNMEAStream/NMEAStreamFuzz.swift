// libFuzzer target for the streaming line splitter (and the decoder behind it): the first byte of the
// input picks a chunk size; the lines and events must be the same as when the same bytes arrive in
// one piece (a differential check), and no line may exceed the splitter's bound.
//
// `-DFUZZING` builds run libFuzzer's driver; plain builds replay files given as arguments (scripts/fuzz.sh).
import CoreLocationFuzzSupport
import Foundation
import CoreLocationEngine
import CoreLocationSources

func run(_ bytes: UnsafeRawBufferPointer, chunk: Int) -> (lines: [[UInt8]], events: [NMEAEpochEvent], overlong: Int) {
    var splitter = NMEALineSplitter(maximumLineLength: 96)
    var decoder = NMEAStreamDecoder(maximumLineLength: 96)
    var lines: [[UInt8]] = []
    var events: [NMEAEpochEvent] = []
    let received = Date(timeIntervalSince1970: 1_767_225_600)
    var offset = 0
    while offset < bytes.count {
        let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + chunk)])
        splitter.feed(piece) { line in
            precondition(line.count <= 96, "line longer than the bound")
            lines.append(Array(line))
        }
        decoder.feed(piece, receivedAt: received) { event, _ in events.append(event) }
        offset += chunk
    }
    splitter.finish { lines.append(Array($0)) }
    decoder.finish(receivedAt: received) { event, _ in events.append(event) }
    return (lines, events, splitter.overlongLines)
}

func fuzzOne(_ data: UnsafeRawBufferPointer) {
    guard let first = data.first else { return }
    let body = UnsafeRawBufferPointer(rebasing: data[1...])
    let chunked = run(body, chunk: Int(first % 37) + 1)
    let whole = run(body, chunk: max(1, body.count))
    precondition(chunked.lines == whole.lines, "lines depend on chunking")
    precondition(chunked.events == whole.events, "events depend on chunking")
    precondition(chunked.overlong == whole.overlong, "overlong count depends on chunking")
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

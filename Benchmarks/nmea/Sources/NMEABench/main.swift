// Decodes an NMEA log held in memory, REPETITIONS times, and prints the median throughput of
// (1) splitting + parsing (what pynmea2 does) and (2) the full pipeline to fixes (splitting, parsing
// and epoch assembly: what gpsdecode does before printing JSON).
// Usage: NMEABench LOG [REPETITIONS]
import Foundation
import CoreLocationEngine
import NMEACore

let arguments = CommandLine.arguments
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: NMEABench LOG [REPETITIONS]\n".utf8))
    exit(64)
}
let repetitions = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 5) : 5
let bytes = [UInt8](data)

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Splits and parses; returns sentences decoded and a value that depends on every sentence (so the
/// optimiser cannot drop the work).
func parseOnly() -> (Int, Double) {
    var splitter = NMEALineSplitter()
    var parser = NMEAParser()
    var sink = 0.0
    let chunk = 65_536
    bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let end = min(all.count, offset + chunk)
            splitter.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { line in
                if let sentence = parser.parse(line), let time = sentence.timeOfDay { sink += time }
            }
            offset = end
        }
    }
    return (parser.statistics.decoded, sink)
}

func fullPipeline() -> (Int, Double) {
    var decoder = NMEAStreamDecoder(referenceDate: nil)
    var fixes = 0
    var sink = 0.0
    let received = Date(timeIntervalSince1970: 1_767_225_600)
    let chunk = 65_536
    bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let end = min(all.count, offset + chunk)
            decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]), receivedAt: received) { event, _ in
                if case .fix(let fix) = event {
                    fixes += 1
                    sink += fix.latitude
                }
            }
            offset = end
        }
    }
    decoder.finish(receivedAt: received) { _, _ in }
    return (decoder.statistics.decoded, sink + Double(fixes))
}

for (name, work) in [("parse", parseOnly), ("pipeline", fullPipeline)] {
    var rates: [Double] = []
    var decoded = 0
    var sink = 0.0
    for _ in 0..<repetitions {
        let clock = ContinuousClock()
        var result = (0, 0.0)
        let elapsed = clock.measure { result = work() }
        decoded = result.0
        sink += result.1
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        rates.append(Double(decoded) / seconds)
    }
    let rate = Int(median(rates))
    print("swift-\(name) \(decoded) sentences \(rate) sentences/s (median of \(repetitions); sink \(sink.isFinite))")
}

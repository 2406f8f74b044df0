import Foundation
import CoreLocationEngine

@testable import CoreLocationSources

/// Wraps a sentence body in `$…*hh` with its checksum, computed here independently of the parser.
func nmea(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(checksum, radix: 16, uppercase: true)
    return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex)
}

/// Decodes one line, nil unless a sentence came out.
func decode(_ line: String) -> NMEASentence? {
    if case .sentence(let sentence) = Array(line.utf8).withUnsafeBytes({ NMEAParser.decode($0) }) {
        return sentence
    }
    return nil
}

func outcome(_ line: String) -> NMEAParser.Outcome {
    Array(line.utf8).withUnsafeBytes { NMEAParser.decode($0) }
}

/// A UTC date from its parts, computed by Foundation's calendar (an oracle independent of the
/// assembler's own day arithmetic).
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Double = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
    let midnightish = calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
    return midnightish.addingTimeInterval(second)
}

/// Runs lines (a whole file's text) through splitter, parser and assembler, the way the source does.
struct NMEAPipelineResult {
    var events: [NMEAEpochEvent]
    var statistics: NMEAStatistics
    var status: NMEAReceiverStatus
    var fixes: [Fix] {
        events.compactMap {
            if case .fix(let fix) = $0 { return fix }
            return nil
        }
    }
}

func runPipeline(
    _ text: some Collection<UInt8>, chunkSize: Int = 4096, referenceDate: Date? = nil,
    receivedAt: Date = utc(2026, 1, 1)
) -> NMEAPipelineResult {
    var splitter = NMEALineSplitter()
    var parser = NMEAParser()
    var assembler = NMEAEpochAssembler(referenceDate: referenceDate)
    var events: [NMEAEpochEvent] = []
    let bytes = Array(text)
    var offset = 0
    while offset < bytes.count {
        let chunk = Array(bytes[offset..<min(bytes.count, offset + chunkSize)])
        splitter.feed(chunk) { line in
            if let sentence = parser.parse(line) {
                events += assembler.handle(sentence, receivedAt: receivedAt)
            }
        }
        offset += chunkSize
    }
    splitter.finish { line in
        if let sentence = parser.parse(line) { events += assembler.handle(sentence, receivedAt: receivedAt) }
    }
    if let last = assembler.finish(receivedAt: receivedAt) { events.append(last) }
    for _ in 0..<splitter.overlongLines { parser.recordOverlong() }
    return NMEAPipelineResult(events: events, statistics: parser.statistics, status: assembler.status)
}

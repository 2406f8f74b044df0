// Decodes an NMEA log to JSON lines, one per fix, as a process: the same work `gpsdecode -j` does
// (read the file, split, parse, assemble epochs, format and write JSON), for a like-for-like timing.
// Each line is gpsd-TPV-shaped: {"class":"TPV","time":…,"lat":…,"lon":…,"altHAE":…,"altMSL":…,
// "speed":…,"track":…,"eph":…,"epv":…}; fields the fix does not have are left out.
// Usage: NMEADecode LOG > fixes.jsonl      (LOG "-": standard input)
import Foundation
import CoreLocationEngine
import CoreLocationGeodesy
import NMEACore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: NMEADecode LOG > fixes.jsonl\n".utf8))
    exit(64)
}
let input: Int32 = arguments[1] == "-" ? 0 : open(arguments[1], O_RDONLY)
guard input >= 0 else {
    FileHandle.standardError.write(Data("cannot open \(arguments[1])\n".utf8))
    exit(1)
}

/// Output buffered in 64 KiB blocks.
struct Output {
    var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1 << 17) }

    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(1, base + offset, bytes.count - offset)
                if written <= 0 { exit(1) }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// ISO 8601 UTC with milliseconds, from seconds since 1970 (the library's `CivilCalendar` for the date).
func iso8601(_ seconds: Double) -> String {
    let millis = Int((seconds * 1000).rounded())
    let days = millis.floorDiv(86_400_000)
    let ms = millis - days * 86_400_000
    let (year, month, day) = CivilCalendar.date(days: days)
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let milli = ms % 1000
    let msText = milli < 10 ? "00\(milli)" : milli < 100 ? "0\(milli)" : "\(milli)"
    return "\(year)-\(two(month))-\(two(day))T\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):"
        + "\(two(ms / 1000 % 60)).\(msText)Z"
}

extension Int {
    func floorDiv(_ d: Int) -> Int { self >= 0 ? self / d : -((-self + d - 1) / d) }
}

/// Reads the whole input, writing one JSON line per fix (locals only: no global state to isolate).
func decode(_ input: Int32) {
    var output = Output()
    func emit(_ fix: Fix) {
        var line = "{\"class\":\"TPV\",\"time\":\"\(iso8601(fix.timestamp.timeIntervalSince1970))\""
        line += ",\"lat\":\(fix.latitude),\"lon\":\(fix.longitude)"
        if fix.verticalAccuracy >= 0 {
            line += ",\"altHAE\":\(fix.ellipsoidalAltitude),\"altMSL\":\(fix.altitude)"
        }
        if fix.speed >= 0 { line += ",\"speed\":\(fix.speed)" }
        if fix.course >= 0 { line += ",\"track\":\(fix.course)" }
        if fix.horizontalAccuracy >= 0 { line += ",\"eph\":\(fix.horizontalAccuracy)" }
        if fix.verticalAccuracy >= 0 { line += ",\"epv\":\(fix.verticalAccuracy)" }
        line += "}\n"
        output.append(line)
    }
    var decoder = NMEAStreamDecoder(referenceDate: nil)
    let received = Date(timeIntervalSince1970: 1_767_225_600)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { bytes in
            bytes.baseAddress.map { read(input, $0, bytes.count) } ?? -1
        }
        if count <= 0 { break }
        chunk.withUnsafeBytes { bytes in
            decoder.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), receivedAt: received) { event, _ in
                if case .fix(let fix) = event { emit(fix) }
            }
        }
    }
    decoder.finish(receivedAt: received) { event, _ in
        if case .fix(let fix) = event { emit(fix) }
    }
    output.flush()
}

decode(input)

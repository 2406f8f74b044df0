import ArgumentParser
import CoreLocation
import Foundation

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, geojson, gpx, csv
}

/// Writes locations to standard output in one of the formats, streaming; documents that need a
/// closing part get it from `finish()`.
///
/// Lines are collected and written by `flush()` (one `write` for many lines), which the caller calls
/// whenever it has caught up with the locations delivered so far, so a live source's line still
/// goes out as it arrives while a replay at full speed is not one system call per fix. `finish()`
/// flushes; so does a buffer over `flushThreshold` bytes.
struct LocationWriter {
    let format: OutputFormat
    private var count = 0
    private var buffer: [UInt8] = []
    /// Buffered bytes that make `emit` write at once.
    static let flushThreshold = 65_536

    init(format: OutputFormat) {
        self.format = format
    }

    static let timestampFormat: Date.ISO8601FormatStyle = .iso8601.year().month().day().time(includingFractionalSeconds: true)
        .timeZone(separator: .omitted)

    mutating func begin() {
        switch format {
        case .geojson: emit(#"{"type":"FeatureCollection","features":["#)
        case .gpx:
            emit(#"<?xml version="1.0" encoding="UTF-8"?>"#)
            emit(#"<gpx version="1.1" creator="locationctl" xmlns="http://www.topografix.com/GPX/1/1">"#)
            emit("<trk><trkseg>")
        case .csv:
            emit("timestamp,latitude,longitude,altitude,ellipsoidal_altitude,horizontal_accuracy,vertical_accuracy,speed,speed_accuracy,course,course_accuracy,simulated")
        case .text, .json: break
        }
    }

    mutating func write(_ location: CLLocation) {
        defer { count += 1 }
        if format == .csv { return writeCSV(location) }
        let c = location.coordinate
        let time = TimestampText.string(location.timestamp)
        switch format {
        case .text:
            var line = "\(time)  \(signed(c.latitude, 6)), \(signed(c.longitude, 6))  ±\(number(location.horizontalAccuracy, 0)) m"
            if location.verticalAccuracy >= 0 { line += "  alt \(number(location.altitude, 1)) m" }
            if location.speed >= 0 { line += "  \(number(location.speed, 2)) m/s" }
            if location.course >= 0 { line += "  course \(number(location.course, 1))°" }
            if location.sourceInformation?.isSimulatedBySoftware == true { line += "  [simulated]" }
            if location.sourceInformation?.isFused == true { line += "  [fused]" }
            emit(line)
        case .json:
            emit(json(location, time: time))
        case .geojson:
            let properties = json(location, time: time)
            let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(c.longitude),\#(c.latitude)]},"properties":\#(properties)}"#
            emit((count == 0 ? "" : ",") + feature)
        case .gpx:
            var point = #"<trkpt lat="\#(c.latitude)" lon="\#(c.longitude)">"#
            if location.verticalAccuracy >= 0 { point += "<ele>\(location.altitude)</ele>" }
            point += "<time>\(time)</time></trkpt>"
            emit(point)
        case .csv: break
        }
    }

    /// A CSV row, straight into the buffer: the same text as joining each value's description.
    private mutating func writeCSV(_ location: CLLocation) {
        TimestampText.append(location.timestamp, to: &buffer)
        let values = [
            location.coordinate.latitude, location.coordinate.longitude, location.altitude,
            location.ellipsoidalAltitude, location.horizontalAccuracy, location.verticalAccuracy, location.speed,
            location.speedAccuracy, location.course, location.courseAccuracy,
        ]
        for value in values {
            buffer.append(UInt8(ascii: ","))
            buffer.append(contentsOf: value.description.utf8)
        }
        let simulated = location.sourceInformation?.isSimulatedBySoftware == true
        buffer.append(contentsOf: simulated ? ",true\n".utf8 : ",false\n".utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    mutating func finish() {
        switch format {
        case .geojson: emit("]}")
        case .gpx: emit("</trkseg></trk></gpx>")
        case .text, .json, .csv: break
        }
        flush()
    }

    /// Writes the lines collected so far to standard output.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    private func json(_ location: CLLocation, time: String) -> String {
        let c = location.coordinate
        var fields: [String] = [
            #""timestamp":"\#(time)""#,
            #""latitude":\#(c.latitude)"#,
            #""longitude":\#(c.longitude)"#,
            #""horizontalAccuracy":\#(location.horizontalAccuracy)"#,
            #""altitude":\#(location.altitude)"#,
            #""ellipsoidalAltitude":\#(location.ellipsoidalAltitude)"#,
            #""verticalAccuracy":\#(location.verticalAccuracy)"#,
            #""speed":\#(location.speed)"#,
            #""speedAccuracy":\#(location.speedAccuracy)"#,
            #""course":\#(location.course)"#,
            #""courseAccuracy":\#(location.courseAccuracy)"#,
        ]
        if let floor = location.floor { fields.append(#""floor":\#(floor.level)"#) }
        fields.append(#""simulated":\#(location.sourceInformation?.isSimulatedBySoftware == true)"#)
        // Only on fused fixes (decision 0095), so the output without an IMU is what it always was.
        if location.sourceInformation?.isFused == true { fields.append(#""fused":true"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private mutating func emit(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushThreshold { flush() }
    }

    private func signed(_ value: Double, _ decimals: Int) -> String {
        String(format: "%+.\(decimals)f", value)
    }

    private func number(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

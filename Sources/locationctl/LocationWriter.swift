import ArgumentParser
import CoreLocation
import Foundation

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, geojson, gpx, csv
}

/// Writes locations to standard output in one of the formats, streaming: every location is
/// written (and flushed) as it arrives; documents that need a closing part get it from `finish()`.
struct LocationWriter {
    let format: OutputFormat
    private var count = 0

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
        let c = location.coordinate
        let time = location.timestamp.formatted(Self.timestampFormat)
        switch format {
        case .text:
            var line = "\(time)  \(signed(c.latitude, 6)), \(signed(c.longitude, 6))  ±\(number(location.horizontalAccuracy, 0)) m"
            if location.verticalAccuracy >= 0 { line += "  alt \(number(location.altitude, 1)) m" }
            if location.speed >= 0 { line += "  \(number(location.speed, 2)) m/s" }
            if location.course >= 0 { line += "  course \(number(location.course, 1))°" }
            if location.sourceInformation?.isSimulatedBySoftware == true { line += "  [simulated]" }
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
        case .csv:
            let simulated = location.sourceInformation?.isSimulatedBySoftware == true
            emit(
                [
                    time, "\(c.latitude)", "\(c.longitude)", "\(location.altitude)", "\(location.ellipsoidalAltitude)",
                    "\(location.horizontalAccuracy)", "\(location.verticalAccuracy)", "\(location.speed)",
                    "\(location.speedAccuracy)", "\(location.course)", "\(location.courseAccuracy)", "\(simulated)",
                ].joined(separator: ",")
            )
        }
        count += 1
    }

    mutating func finish() {
        switch format {
        case .geojson: emit("]}")
        case .gpx: emit("</trkseg></trk></gpx>")
        case .text, .json, .csv: break
        }
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
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
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

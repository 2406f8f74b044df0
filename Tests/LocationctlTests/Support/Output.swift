import Foundation
import Testing

/// Parses one JSON object (a line of `--format json`, or a whole document).
func jsonObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(text)")
}

/// A CSV row of `track --format csv`, by column name.
struct CSVRow {
    var fields: [String: String]

    var latitude: Double? { fields["latitude"].flatMap(Double.init) }
    var longitude: Double? { fields["longitude"].flatMap(Double.init) }
    var coordinate: (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude else { return nil }
        return (latitude, longitude)
    }

    /// Splits `locationctl`'s CSV (no quoting: every field is a number, a date or a boolean).
    static func parse(_ text: String) throws -> (header: [String], rows: [CSVRow]) {
        let lines = text.split(separator: "\n").map(String.init)
        let header = try #require(lines.first, "no CSV header").split(separator: ",").map(String.init)
        let rows = try lines.dropFirst().map { line in
            let values = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            try #require(values.count == header.count, "\(values.count) fields, header has \(header.count): \(line)")
            return CSVRow(fields: Dictionary(uniqueKeysWithValues: zip(header, values)))
        }
        return (header, rows)
    }
}

/// The fixture recorded from the same GPX file as the built-in `drive` route (its first points).
func driveFixturePoints() throws -> [(latitude: Double, longitude: Double)] {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CoreLocationSourcesTests/Fixtures/around-visnjan-with-car-excerpt.gpx")
    return try trackPoints(inGPX: String(contentsOf: url, encoding: .utf8))
}

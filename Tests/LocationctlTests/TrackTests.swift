import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `track --simulate drive --speed max`: every format carries every point of the route.
@Suite struct TrackTests {
    static let drive = ["track", "--simulate", "drive", "--speed", "max"]

    @Test func everyFormatCarriesEveryPointOfTheRoute() async throws {
        let sandbox = try Sandbox()
        let csvRun = try await sandbox.run(.locationctl, Self.drive + ["--format", "csv"])
        #expect(csvRun.status == 0, "\(csvRun)")
        let csv = try CSVRow.parse(csvRun.stdout)
        #expect(csv.header.first == "timestamp" && csv.header.contains("latitude") && csv.header.contains("longitude"))
        // The drive route is 104 points (BuiltInRoute.swift); at least it is a real route.
        #expect(csv.rows.count >= 100, "\(csvRun)")

        let gpxRun = try await sandbox.run(.locationctl, Self.drive + ["--format", "gpx"])
        #expect(gpxRun.status == 0, "\(gpxRun)")
        let gpx = try GPXCounter.parse(gpxRun.stdout)
        #expect(gpx.wellFormed, "\(gpxRun)")
        #expect(gpx.trackPoints == csv.rows.count)

        let geojsonRun = try await sandbox.run(.locationctl, Self.drive + ["--format", "geojson"])
        #expect(geojsonRun.status == 0, "\(geojsonRun)")
        let geojson = try jsonObject(geojsonRun.stdout)
        #expect(geojson["type"] as? String == "FeatureCollection")
        let features = try #require(geojson["features"] as? [[String: Any]])
        #expect(features.count == csv.rows.count)
        // GeoJSON orders a position longitude first (RFC 7946 §3.1.1).
        let firstPosition = (features.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double]
        #expect(firstPosition == [csv.rows.first?.longitude, csv.rows.first?.latitude].compactMap { $0 })

        let jsonRun = try await sandbox.run(.locationctl, Self.drive + ["--format", "json"])
        #expect(jsonRun.status == 0, "\(jsonRun)")
        #expect(try jsonRun.lines.map(jsonObject).count == csv.rows.count)
    }

    @Test func theRouteStartsWhereTheRecordingStarts() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(.locationctl, Self.drive + ["--format", "csv"])
        #expect(run.status == 0, "\(run)")
        let rows = try CSVRow.parse(run.stdout).rows
        let fixture = try driveFixturePoints()
        try #require(fixture.count >= 10 && rows.count >= fixture.count)
        // The built-in route keeps 6 decimals (≈ 0.1 m); the fixture has 10.
        for (row, point) in zip(rows, fixture) {
            let coordinate = try #require(row.coordinate)
            #expect(abs(coordinate.latitude - point.latitude) <= 1e-6, "\(coordinate) vs \(point)")
            #expect(abs(coordinate.longitude - point.longitude) <= 1e-6, "\(coordinate) vs \(point)")
            #expect(row.fields["simulated"] == "true")
        }
    }

    @Test func limitStopsAfterThatManyLocations() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(.locationctl, Self.drive + ["--format", "csv", "--limit", "5"])
        #expect(run.status == 0, "\(run)")
        #expect(try CSVRow.parse(run.stdout).rows.count == 5, "\(run)")
    }

    @Test func distanceFilterDropsLocationsCloserThanTheFilter() async throws {
        let sandbox = try Sandbox()
        let all = try await sandbox.run(.locationctl, Self.drive + ["--format", "csv"])
        let filtered = try await sandbox.run(.locationctl, Self.drive + ["--format", "csv", "--distance-filter", "200"])
        #expect(all.status == 0 && filtered.status == 0, "\(filtered)")
        let allRows = try CSVRow.parse(all.stdout).rows
        let rows = try CSVRow.parse(filtered.stdout).rows
        #expect(rows.count >= 2 && rows.count < allRows.count / 2, "\(rows.count) of \(allRows.count)")
        #expect(rows.first?.latitude == allRows.first?.latitude && rows.first?.longitude == allRows.first?.longitude)
        let coordinates = rows.compactMap(\.coordinate)
        for (a, b) in zip(coordinates, coordinates.dropFirst()) {
            // The engine measures on the ellipsoid; the sphere is within 0.5 %, so 1 % slack.
            #expect(haversineDistance(a, b) >= 200 * 0.99, "\(a) → \(b)")
        }
    }
}

/// Counts `<trkpt>` elements with a real XML parser, which also says whether the document is well formed.
final class GPXCounter: NSObject, XMLParserDelegate {
    private(set) var trackPoints = 0
    private(set) var wellFormed = false

    static func parse(_ text: String) throws -> GPXCounter {
        let counter = GPXCounter()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = counter
        counter.wellFormed = parser.parse()
        return counter
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if elementName == "trkpt" { trackPoints += 1 }
    }
}

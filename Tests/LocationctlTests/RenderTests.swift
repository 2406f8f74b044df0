import Foundation
import Testing

/// `locationctl render` draws an SVG; a real browser (headless chromium) opens it, and the pixels of
/// its screenshot must show each element where its coordinates say. The expected pixel positions
/// come from this file's own Web Mercator (EPSG:3857) fitted to `--bounds`, not from the tool's code.
@Suite(.enabled(if: Browser.path != nil, "needs Debian package chromium"))
struct RenderTests {
    /// EPSG:3857 world coordinates in [0, 1], y down.
    static func mercator(_ latitude: Double, _ longitude: Double) -> (x: Double, y: Double) {
        let phi = latitude * .pi / 180
        return ((longitude + 180) / 360, (1 - log(tan(.pi / 4 + phi / 2)) / .pi) / 2)
    }

    /// The pixel of a coordinate when the box south…north × west…east is fitted into the canvas
    /// (aspect kept, centred).
    struct Fit {
        var south, west, north, east: Double
        var width, height: Double

        func pixel(_ latitude: Double, _ longitude: Double) -> (x: Double, y: Double) {
            let topLeft = RenderTests.mercator(north, west)
            let bottomRight = RenderTests.mercator(south, east)
            let scale = min(width / (bottomRight.x - topLeft.x), height / (bottomRight.y - topLeft.y))
            let centre = ((topLeft.x + bottomRight.x) / 2, (topLeft.y + bottomRight.y) / 2)
            let p = RenderTests.mercator(latitude, longitude)
            return ((p.x - centre.0) * scale + width / 2, (p.y - centre.1) * scale + height / 2)
        }

        /// Pixels per metre on the ground at a latitude (sphere of radius 6 378 137 m).
        func pixelsPerMetre(atLatitude latitude: Double) -> Double {
            let a = pixel(latitude, 0)
            let b = pixel(latitude, 1)
            return (b.x - a.x) / (6_378_137 * .pi / 180 * cos(latitude * .pi / 180))
        }

        var argument: String { "\(south),\(west),\(north),\(east)" }
    }

    static func isRegionPink(_ c: Screenshot.Colour) -> Bool { c.red - c.green > 50 && c.blue - c.green > 15 }
    static func isTrackBlue(_ c: Screenshot.Colour) -> Bool { c.blue - c.red > 80 && c.blue > 150 }
    static func isVisitBrown(_ c: Screenshot.Colour) -> Bool { c.red > 140 && c.blue < 70 && c.red - c.green > 50 }
    static func isLand(_ c: Screenshot.Colour) -> Bool { c.red >= 235 && c.green >= 232 && c.blue >= 222 && c.red > c.blue }
    static func isSea(_ c: Screenshot.Colour) -> Bool { c.blue - c.red > 20 && c.blue > 220 }

    /// A walk in Paris: 300 m east in 3 m steps every 2 s, ten minutes standing, 300 m on.
    static func walkGPX(latitude: Double, longitude: Double) -> (gpx: String, stop: (Double, Double)) {
        let step = 3 / (6_378_137 * .pi / 180 * cos(latitude * .pi / 180))
        var points: [Double] = []
        var lon = longitude
        for _ in 0..<100 { lon += step; points.append(lon) }
        let stop = lon
        for _ in 0..<300 { points.append(lon) }
        for _ in 0..<100 { lon += step; points.append(lon) }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let format = Date.ISO8601FormatStyle()
        let body = points.enumerated().map { index, lon in
            "<trkpt lat=\"\(latitude)\" lon=\"\(lon)\"><time>\(start.addingTimeInterval(Double(2 * index)).formatted(format))</time></trkpt>"
        }.joined(separator: "\n")
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="RenderTests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            \(body)
            </trkseg></trk>
            </gpx>

            """
        return (gpx, (latitude, stop))
    }

    func screenshot(_ sandbox: Sandbox, svg: String, width: Int, height: Int) async throws -> Screenshot {
        let png = sandbox.directory.appendingPathComponent("shot.png").path
        try await Browser.screenshot(
            of: svg, width: width, height: height, into: png,
            profile: sandbox.directory.appendingPathComponent("chromium-profile").path
        )
        return try await Screenshot(png: png, scratch: sandbox.directory)
    }

    @Test func regionsFixesAndVisitsAreWhereTheirCoordinatesSay() async throws {
        let sandbox = try Sandbox()
        let walk = Self.walkGPX(latitude: 48.85, longitude: 2.30)
        let gpx = try sandbox.write(walk.gpx, to: "walk.gpx")
        let svg = sandbox.directory.appendingPathComponent("walk.svg").path
        let fit = Fit(south: 48.846, west: 2.296, north: 48.856, east: 2.312, width: 800, height: 600)
        // 222 m north of the start, 150 m east: well clear of the track.
        let region = (latitude: 48.852, longitude: 2.302, radius: 60.0)
        let run = try await sandbox.locationctl(
            "render", "--simulate", gpx, "--visits", "--region", "\(region.latitude),\(region.longitude),\(region.radius),cafe",
            "--bounds", fit.argument, "--size", "800x600", "--output", svg
        )
        #expect(run.status == 0, "\(run)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("visit (1)"), "the legend counts one visit")

        let shot = try await screenshot(sandbox, svg: svg, width: 800, height: 600)
        #expect(shot.width == 800 && shot.height == 600)
        #expect(shot.colourCount > 20, "the screenshot is blank or nearly so")

        let centre = fit.pixel(region.latitude, region.longitude)
        let radius = region.radius * fit.pixelsPerMetre(atLatitude: region.latitude)
        #expect(radius > 30, "the region is big enough on screen to test its edge (\(radius) px)")
        #expect(Self.isRegionPink(shot[centre.x, centre.y]), "region centre at \(centre): \(shot[centre.x, centre.y])")
        #expect(Self.isRegionPink(shot[centre.x + 0.75 * radius, centre.y]), "\(shot[centre.x + 0.75 * radius, centre.y])")
        #expect(Self.isRegionPink(shot[centre.x, centre.y - 0.75 * radius]))
        #expect(!Self.isRegionPink(shot[centre.x + 1.3 * radius, centre.y]), "\(shot[centre.x + 1.3 * radius, centre.y])")
        #expect(Self.isLand(shot[centre.x + 1.3 * radius, centre.y]), "Paris is land: \(shot[centre.x + 1.3 * radius, centre.y])")

        // A fix 150 m along the walk (the 50th point), drawn as a blue dot.
        let step = 3 / (6_378_137 * .pi / 180 * cos(48.85 * .pi / 180))
        let fix = fit.pixel(48.85, 2.30 + 50 * step)
        #expect(Self.isTrackBlue(shot[fix.x, fix.y]), "fix at \(fix): \(shot[fix.x, fix.y])")
        // 40 px south of the track there is nothing but land.
        #expect(Self.isLand(shot[fix.x, fix.y + 40]), "\(shot[fix.x, fix.y + 40])")
        // The visit where the walk stood for ten minutes.
        let visit = fit.pixel(walk.stop.0, walk.stop.1)
        #expect(Self.isVisitBrown(shot[visit.x, visit.y]), "visit at \(visit): \(shot[visit.x, visit.y])")
    }

    @Test func countryBordersSeparateLandFromSea() async throws {
        let sandbox = try Sandbox()
        let svg = sandbox.directory.appendingPathComponent("iberia.svg").path
        let fit = Fit(south: 35, west: -12, north: 45, east: 5, width: 800, height: 600)
        let run = try await sandbox.locationctl(
            "render", "--simulate", "40.4,-3.7", "--bounds", fit.argument, "--size", "800x600", "--output", svg
        )
        #expect(run.status == 0, "\(run)")
        let shot = try await screenshot(sandbox, svg: svg, width: 800, height: 600)
        #expect(shot.colourCount > 20)
        // Madrid's fix: Web Mercator puts it ~20 px from where an equirectangular map would.
        let madrid = fit.pixel(40.4, -3.7)
        #expect(Self.isTrackBlue(shot[madrid.x, madrid.y]), "fix at \(madrid): \(shot[madrid.x, madrid.y])")
        for (latitude, longitude) in [(40.0, -11.0), (38.0, 1.0), (36.0, -4.0)] {
            let p = fit.pixel(latitude, longitude)
            #expect(Self.isSea(shot[p.x, p.y]), "sea at \(latitude), \(longitude) → \(p): \(shot[p.x, p.y])")
        }
        for (latitude, longitude) in [(42.0, -4.0), (39.0, -7.5), (44.0, 2.0), (35.2, -5.5)] {
            let p = fit.pixel(latitude, longitude)
            #expect(Self.isLand(shot[p.x, p.y]), "land at \(latitude), \(longitude) → \(p): \(shot[p.x, p.y])")
        }
    }

    @Test func aLogWithoutPositionsIsRefused() async throws {
        let sandbox = try Sandbox()
        let log = try sandbox.write("not NMEA at all\n", to: "empty.nmea")
        let run = try await sandbox.locationctl("render", "--source", "nmea:\(log)", "--output", "x.svg")
        #expect(run.status != 0, "\(run)")
        #expect(run.stderr.contains("no fix to draw"), "\(run)")
    }
}

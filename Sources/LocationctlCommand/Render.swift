import ArgumentParser
import CoreLocationEngine
import CoreLocationGeocoding
import CoreLocationSources
import Foundation

extension LocationCtl {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Draw a track or a replay as an SVG map.",
            discussion: """
                Draws every fix with its accuracy circle (the radius of uncertainty, horizontalAccuracy), \
                the --region circles with the entries and exits the engine reports for this track, the \
                visits it detects (--visits), on the country borders of the offline gazetteer (Natural Earth \
                1:10m), with a scale bar and a legend. The projection is Web Mercator (EPSG:3857), fitted \
                to the data (or to --bounds). The replay runs on the recording's own clock, so regions and \
                visits come out as an app would see them, whatever the time it takes to draw.

                Examples:
                  locationctl render --simulate drive --output drive.svg
                  locationctl render --simulate walk.gpx --visits --region 48.8584,2.2945,150,tower --output walk.svg
                  locationctl render --source nmea:/path/trip.nmea --output trip.svg --size 1600x1200
                """
        )

        @Option(
            help: ArgumentHelp(
                "A built-in route (\(BuiltInRoute.names.joined(separator: ", "))), a GPX file, or LAT,LON.",
                valueName: "route|file|lat,lon"
            )
        )
        var simulate: String?

        @Option(name: .customLong("source"), help: ArgumentHelp("A recorded NMEA log: nmea:/path/file.nmea.", valueName: "url"))
        var source: String?

        @Option(
            name: .customLong("region"),
            help: ArgumentHelp("A circular region to draw and monitor, repeatable.", valueName: "lat,lon,radius[,id]")
        )
        var regions: [RegionArgument] = []

        @Flag(help: "Detect visits along the track and draw them.")
        var visits = false

        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the SVG; '-' for standard output.", valueName: "file.svg"))
        var output: String = "-"

        @Option(help: ArgumentHelp("Canvas size in pixels.", valueName: "WIDTHxHEIGHT"))
        var size: CanvasSize = CanvasSize(width: 1000, height: 750)

        @Option(help: ArgumentHelp("Show this box instead of fitting the data.", valueName: "south,west,north,east"))
        var bounds: BoundsArgument?

        func validate() throws {
            if (simulate == nil) == (source == nil) {
                throw ValidationError("Give exactly one of --simulate ROUTE|GPX|LAT,LON and --source nmea:FILE.")
            }
            if let simulate {
                do { _ = try SimulationScenario.parse(simulate) } catch {
                    throw ValidationError("--simulate \(simulate): \(error)")
                }
            }
            if let source, Self.nmeaPath(source) == nil {
                throw ValidationError("--source \(source): render reads recorded NMEA logs only (nmea:/path/file.nmea).")
            }
            for region in regions {
                guard abs(region.latitude) <= 90, abs(region.longitude) <= 180 else {
                    throw ValidationError("--region \(region.identifier): the centre is not a WGS84 coordinate.")
                }
                guard region.radius > 0, region.radius.isFinite else {
                    throw ValidationError("--region \(region.identifier): the radius must be a positive number of metres.")
                }
            }
            if Set(regions.map(\.identifier)).count != regions.count {
                throw ValidationError("Two --region options have the same identifier.")
            }
        }

        static func nmeaPath(_ source: String) -> String? {
            guard source.hasPrefix("nmea:") else { return nil }
            let rest = source.dropFirst("nmea:".count)
            let path = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return path.isEmpty ? nil : path
        }

        func run() throws {
            var scene = try makeScene()
            guard !scene.allFixes.isEmpty else {
                throw RenderFailure("no fix to draw: the \(simulate == nil ? "log holds no NMEA position" : "route is empty")")
            }
            scene.replayThroughEngine(visits: visits)
            let box = bounds?.box ?? Self.fittingBox(scene)
            let projection = MapProjection(
                fitting: box, width: Double(size.width), height: Double(size.height), margin: bounds == nil ? 48 : 0
            )
            let visible = projection.visibleBox
            let borders: [Gazetteer.BorderRing]
            do {
                borders = try Gazetteer.bundled().borderRings(
                    minLatitude: visible.south, maxLatitude: visible.north,
                    minLongitude: visible.west, maxLongitude: visible.east
                )
            } catch {
                throw RenderFailure("cannot load the gazetteer's country borders: \(error)")
            }
            let svg = SVGMap(scene: scene, projection: projection, borders: borders).render()
            if output == "-" {
                FileHandle.standardOutput.write(Data(svg.utf8))
            } else {
                do {
                    try Data(svg.utf8).write(to: URL(fileURLWithPath: output))
                } catch {
                    throw RenderFailure("cannot write \(output): \(error.localizedDescription)")
                }
            }
        }

        private func makeScene() throws -> RenderScene {
            let monitored = regions.map {
                MonitoredRegion(identifier: $0.identifier, latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius)
            }
            if let simulate {
                let scenario = try SimulationScenario.parse(simulate)
                let title: String
                switch scenario {
                case .fixed(let latitude, let longitude): title = "simulated fix at \(latitude), \(longitude)"
                case .route(let route): title = "simulated route \(route.name)"
                case .gpxFile(let file): title = "simulated route \(file.name)"
                }
                let fixes = RenderScene.fixes(of: scenario)
                return RenderScene(title: title, layers: [.init(kind: .raw, name: title, fixes: fixes)], regions: monitored)
            }
            let path = source.flatMap(Self.nmeaPath) ?? ""
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw RenderFailure("cannot read \(path): \(error.localizedDescription)")
            }
            let title = "NMEA log " + URL(fileURLWithPath: path).lastPathComponent
            let fixes = RenderScene.fixes(ofNMEA: bytes)
            return RenderScene(title: title, layers: [.init(kind: .raw, name: title, fixes: fixes)], regions: monitored)
        }

        /// The box holding every fix, region and visit, at least 300 m across.
        static func fittingBox(_ scene: RenderScene) -> MapProjection.Box {
            var circles = scene.allFixes.map { ($0.latitude, $0.longitude, 0.0) }
            circles += scene.regions.map { ($0.latitude, $0.longitude, $0.radius) }
            circles += scene.visits.map { ($0.latitude, $0.longitude, max(0, $0.horizontalAccuracy)) }
            var box = MapProjection.Box(south: 90, west: 180, north: -90, east: -180)
            let metresPerDegree = MapProjection.earthRadius * .pi / 180
            for (latitude, longitude, radius) in circles {
                let dLat = radius / metresPerDegree
                let dLon = radius / (metresPerDegree * max(0.01, cos(latitude * .pi / 180)))
                box.south = min(box.south, latitude - dLat)
                box.north = max(box.north, latitude + dLat)
                box.west = min(box.west, longitude - dLon)
                box.east = max(box.east, longitude + dLon)
            }
            let centreLatitude = (box.south + box.north) / 2
            let minimumLat = 150 / metresPerDegree
            let minimumLon = 150 / (metresPerDegree * max(0.01, cos(centreLatitude * .pi / 180)))
            if box.north - box.south < 2 * minimumLat {
                box = MapProjection.Box(south: centreLatitude - minimumLat, west: box.west, north: centreLatitude + minimumLat, east: box.east)
            }
            let centreLongitude = (box.west + box.east) / 2
            if box.east - box.west < 2 * minimumLon {
                box.west = centreLongitude - minimumLon
                box.east = centreLongitude + minimumLon
            }
            return box
        }
    }
}

struct RenderFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `--size WIDTHxHEIGHT`, each 100…10 000 pixels.
struct CanvasSize: ExpressibleByArgument {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (100...10_000).contains(width), (100...10_000).contains(height)
        else { return nil }
        self.width = width
        self.height = height
    }

    var defaultValueDescription: String { "\(width)x\(height)" }
}

/// `--bounds SOUTH,WEST,NORTH,EAST` in degrees.
struct BoundsArgument: ExpressibleByArgument {
    var box: MapProjection.Box

    init?(argument: String) {
        let numbers = argument.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, numbers[0] < numbers[2], numbers[1] < numbers[3],
            numbers[0] >= -85, numbers[2] <= 85, numbers[1] >= -180, numbers[3] <= 180
        else { return nil }
        box = MapProjection.Box(south: numbers[0], west: numbers[1], north: numbers[2], east: numbers[3])
    }
}

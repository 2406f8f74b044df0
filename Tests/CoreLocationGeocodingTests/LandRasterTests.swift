import Foundation
import Testing
@testable import CoreLocationGeocoding

/// The land raster, the per-country place trees and the reach mask are shortcuts: each must give exactly what
/// the exact computation it skips gives (the polygon test, the nearest-place scan, the locality window scan).
@Suite struct LandRasterTests {
    /// The integer-microdegree points of a cell to check: its four corners, its centre, and for the last row
    /// and column the closed edges (90°, 180°) that fall in them.
    static func probes(row: Int, column: Int) -> [(Int32, Int32)] {
        let size = Int32(LandRaster.cellSize)
        let south = Int32(row) * size - 90_000_000, west = Int32(column) * size - 180_000_000
        var lats = [south, south + size / 2, south + size - 1]
        var lons = [west, west + size / 2, west + size - 1]
        if row == LandRaster.rows - 1 { lats.append(90_000_000) }
        if column == LandRaster.columns - 1 { lons.append(180_000_000) }
        return lats.flatMap { lat in lons.map { (lat, $0) } }
    }

    /// Checks every probe of the cell; returns whether the cell was one the raster answers (not "test").
    @discardableResult
    static func check(_ index: CountryIndex, row: Int, column: Int) -> Bool {
        let answer = LandRaster.answer(index.raster.cells[row * LandRaster.columns + column])
        guard answer != .test else { return false }
        for (lat, lon) in probes(row: row, column: column) {
            #expect(LandRaster.cell(latitude: lat, longitude: lon) == row * LandRaster.columns + column)
            let exact = index.countryByPolygons(latitude: lat, longitude: lon)
            #expect(answer == (exact.map { LandRaster.Answer.country($0) } ?? LandRaster.Answer.sea), "cell \(row), \(column) at \(lat), \(lon)")
            #expect(index.country(latitude: lat, longitude: lon) == exact)
        }
        return true
    }

    /// Seeded cells from the whole raster, land and sea.
    @Test func rasterAgreesWithThePolygonTestOnSampledCells() throws {
        let index = try Gazetteer.bundled().polygons
        var generator = SplitMix64(seed: 0x1A4D)
        var checked = 0
        while checked < 6_000 {
            let row = Int(generator.next() % UInt64(LandRaster.rows))
            let column = Int(generator.next() % UInt64(LandRaster.columns))
            if Self.check(index, row: row, column: column) { checked += 1 }
        }
        // The corner cells at the poles and the antimeridian.
        for row in [0, LandRaster.rows - 1] {
            for column in [0, 1, LandRaster.columns - 2, LandRaster.columns - 1] {
                Self.check(index, row: row, column: column)
            }
        }
    }

    /// Every cell around enclaves and tight borders: Lesotho in South Africa, San Marino and the Vatican in
    /// Italy, Baarle on the Belgian-Dutch border, the Caprivi strip; and across the antimeridian in Fiji.
    @Test(arguments: [(-31.0, 27.0), (43.5, 12.0), (41.5, 12.0), (51.0, 4.5), (-18.0, 23.0), (-17.0, 179.0)])
    func rasterAgreesWithThePolygonTestAroundBorders(_ corner: (Double, Double)) throws {
        let index = try Gazetteer.bundled().polygons
        let firstRow = Int((corner.0 + 90) * 10), firstColumn = Int((corner.1 + 180) * 10)
        var answered = 0
        for row in firstRow..<firstRow + 20 {
            for column in firstColumn..<firstColumn + 20 {
                answered += Self.check(index, row: row, column: column % LandRaster.columns) ? 1 : 0
            }
        }
        #expect(answered > 40)  // the raster answers some cells even here; the rest were tested exactly
    }

    @Test func rasterAnswersMostCells() throws {
        let cells = try Gazetteer.bundled().polygons.raster.cells
        let test = cells.filter { $0 == LandRaster.test }.count
        let land = cells.filter { $0 > LandRaster.test }.count
        #expect(test < cells.count / 30)  // coasts and borders: 2.3 % of the cells
        #expect(land > 2_000_000)
    }
}

extension LandRasterTests {
    /// The tree's nearest place of a country is the one a scan of that country's places finds (ties: lower
    /// index), and the time-zone anchor agrees with the window search it replaced.
    @Test func treeNearestMatchesAScanAndTheWindowSearch() throws {
        let gazetteer = try Gazetteer.bundled()
        var generator = SplitMix64(seed: 0x7EE)
        var points: [(Double, Double)] = [(89.9, 0), (-54.8, -68.3), (71.0, 179.9), (65.0, -179.9), (64.0, -41.0)]
        for _ in 0..<150 {
            let z = Double(generator.next() % 2_000_001) / 1_000_000 - 1
            points.append((asin(z) * 180 / .pi, Double(generator.next() % 360_000_001) / 1_000_000 - 180))
        }
        var compared = 0
        for (latitude, longitude) in points {
            let lat = Int32((latitude * 1e6).rounded()), lon = Int32((longitude * 1e6).rounded())
            let cosLat = cos(latitude * .pi / 180)
            // The country of the point, else of a random place (sea points still exercise the tree).
            let code = gazetteer.polygons.country(latitude: lat, longitude: lon).map {
                Int32(gazetteer.countries[$0].iso2)
            } ?? gazetteer.places.country[Int(generator.next() % UInt64(gazetteer.placeCount))]
            guard let block = gazetteer.placeTree.blocks[code] else { continue }
            var best: (index: Int, distance: Double)?
            for index in block where gazetteer.places.country[index] == code {
                let d = gazetteer.distance(index, lat: lat, lon: lon, cosLat: cosLat)
                if d < best?.distance ?? .infinity { best = (index, d) }
            }
            let found = gazetteer.placeTree.nearest(country: code, latitude: lat, longitude: lon, cosLat: cosLat)
            #expect(found?.index == best?.index && found?.distance == best?.distance, "\(latitude), \(longitude)")
            let window = gazetteer.nearestPlace(
                lat: lat, lon: lon, cosLat: cosLat, country: code, maxRadius: Gazetteer.anchorRadius)
            let anchor = gazetteer.anchorPlace(lat: lat, lon: lon, cosLat: cosLat, country: code)
            #expect(anchor?.index == window?.index && anchor?.distance == window?.distance, "\(latitude), \(longitude)")
            compared += 1
        }
        #expect(compared > 100)
    }

    /// Where the reach mask is clear, no place of any country has the point within its locality reach (so the
    /// skipped window scan could have found nothing); seeded points, half of them 10–60 km from a place.
    @Test func clearReachMaskMeansNoPlaceInReach() throws {
        let gazetteer = try Gazetteer.bundled()
        let places = gazetteer.places
        var generator = SplitMix64(seed: 0x5EA)
        var clear = 0
        for k in 0..<400 {
            var latitude: Double, longitude: Double
            if k % 2 == 0 {
                let z = Double(generator.next() % 2_000_001) / 1_000_000 - 1
                latitude = asin(z) * 180 / .pi
                longitude = Double(generator.next() % 360_000_001) / 1_000_000 - 180
            } else {
                let place = Int(generator.next() % UInt64(gazetteer.placeCount))
                let offset = Double(10_000 + generator.next() % 50_000) / Gazetteer.metresPerDegree
                latitude = max(-90, min(90, Double(places.latitude[place]) / 1e6 + offset))
                longitude = Double(places.longitude[place]) / 1e6
            }
            let lat = Int32((latitude * 1e6).rounded()), lon = Int32((longitude * 1e6).rounded())
            guard !gazetteer.placeGrid.mayReach(latitude: lat, longitude: lon) else { continue }
            clear += 1
            let cosLat = cos(latitude * .pi / 180)
            for index in 0..<gazetteer.placeCount where abs(places.latitude[index] - lat) < 3_000_000 {
                let d = gazetteer.distance(index, lat: lat, lon: lon, cosLat: cosLat)
                #expect(d > Gazetteer.localityReach(population: places.population[index]), "\(latitude), \(longitude)")
            }
        }
        #expect(clear > 50)
    }
}

/// Point-in-polygon look-up of the Natural Earth 1:10m admin-0 polygons (full resolution, not simplified).
///
/// Coordinates are integer microdegrees and the crossing test is exact integer arithmetic, so a point's
/// answer agrees with the polygons as published (which are themselves accurate to roughly 100 m at
/// 1:10m). Method: a 1° grid lists the rings whose bounding box meets each cell; a ring is tested only if
/// its box contains the point, by even-odd ray crossing (eastward ray) over the edges of the ring's
/// 0.1° latitude band only. Holes (enclaves such as Lesotho) are rings of the same country, so the
/// country's parity over all its rings decides.
///
/// Most points never reach the polygons: the land raster (`LandRaster`) gives the answer of every 0.1° cell
/// no edge touches; only points in the 2.3 % of cells along coasts and borders run the polygon test.
struct CountryIndex: Sendable {
    static let bandHeight: Int32 = 100_000  // 0.1°, in microdegrees

    let vertexLatitude: [Int32]
    let vertexLongitude: [Int32]
    let ringCountry: [Int32]
    let ringStart: [Int32]  // first vertex; the ring's last vertex repeats the first
    let ringEnd: [Int32]
    let ringMinLat: [Int32]
    let ringMaxLat: [Int32]
    let ringMinLon: [Int32]
    let ringMaxLon: [Int32]
    /// Bands of ring r are `ringBandBase[r] ..< ringBandBase[r + 1]`; edges of band b are
    /// `bandEdges[bandStart[b] ..< bandStart[b + 1]]` (an edge is its first vertex's index).
    let ringBandBase: [Int32]
    let bandStart: [Int32]
    let bandEdges: [Int32]
    /// Rings meeting 1° cell c are `cellRings[cellStart[c] ..< cellStart[c + 1]]`, ascending.
    let cellStart: [Int32]
    let cellRings: [Int32]
    let raster: LandRaster

    init(rings: ByteReader, vertices: ByteReader, land: ByteReader, countryCount: Int) throws(GeocodingError) {
        raster = try LandRaster(land, countryCount: countryCount)
        var rings = rings
        var vertices = vertices
        var ringCountry: [Int32] = []
        var ringStart: [Int32] = []
        var ringEnd: [Int32] = []
        var lats: [Int32] = []
        var lons: [Int32] = []
        // Two varints of about 2.6 bytes per vertex on average: reserve enough to avoid regrowth.
        lats.reserveCapacity((vertices.end - vertices.offset) / 4)
        lons.reserveCapacity((vertices.end - vertices.offset) / 4)
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !rings.isAtEnd {
            let country = try rings.index(below: countryCount)
            let count = try rings.index(below: 10_000_000)
            guard count >= 4 else { throw GeocodingError(.resourceCorrupt, "a polygon ring has \(count) vertices") }
            ringCountry.append(Int32(country))
            ringStart.append(Int32(lats.count))
            for _ in 0..<count {
                lat += try vertices.signed()
                lon += try vertices.signed()
                guard abs(lat) <= 90_000_000, abs(lon) <= 180_000_000 else {
                    throw GeocodingError(.resourceCorrupt, "a polygon vertex is out of range")
                }
                lats.append(Int32(lat))
                lons.append(Int32(lon))
            }
            ringEnd.append(Int32(lats.count))
        }
        vertexLatitude = lats
        vertexLongitude = lons
        self.ringCountry = ringCountry
        self.ringStart = ringStart
        self.ringEnd = ringEnd
        var minLat: [Int32] = [], maxLat: [Int32] = [], minLon: [Int32] = [], maxLon: [Int32] = []
        for ring in ringStart.indices {
            let range = Int(ringStart[ring])..<Int(ringEnd[ring])
            minLat.append(lats[range].min() ?? 0)
            maxLat.append(lats[range].max() ?? 0)
            minLon.append(lons[range].min() ?? 0)
            maxLon.append(lons[range].max() ?? 0)
        }
        ringMinLat = minLat
        ringMaxLat = maxLat
        ringMinLon = minLon
        ringMaxLon = maxLon
        (ringBandBase, bandStart, bandEdges) = Self.buildBands(
            lats: lats, starts: ringStart, ends: ringEnd, minLat: minLat, maxLat: maxLat)
        (cellStart, cellRings) = Self.buildCells(minLat: minLat, maxLat: maxLat, minLon: minLon, maxLon: maxLon)
    }

    private static func buildBands(
        lats: [Int32], starts: [Int32], ends: [Int32], minLat: [Int32], maxLat: [Int32]
    ) -> ([Int32], [Int32], [Int32]) {
        var ringBandBase: [Int32] = [0]
        for ring in starts.indices {
            let bands = (maxLat[ring] - minLat[ring]) / bandHeight + 1
            ringBandBase.append(ringBandBase[ring] + bands)
        }
        let bandCount = Int(ringBandBase[starts.count])
        var counts = [Int32](repeating: 0, count: bandCount + 1)
        func forEachBand(_ body: (Int, Int32) -> Void) {
            for ring in starts.indices {
                let base = Int(ringBandBase[ring])
                for edge in Int(starts[ring])..<Int(ends[ring]) - 1 {
                    let low = min(lats[edge], lats[edge + 1]) - minLat[ring]
                    let high = max(lats[edge], lats[edge + 1]) - minLat[ring]
                    for band in Int(low / bandHeight)...Int(high / bandHeight) {
                        body(base + band, Int32(edge))
                    }
                }
            }
        }
        forEachBand { band, _ in counts[band + 1] += 1 }
        for band in 0..<bandCount { counts[band + 1] += counts[band] }
        var fill = counts
        var edges = [Int32](repeating: 0, count: Int(counts[bandCount]))
        forEachBand { band, edge in
            edges[Int(fill[band])] = edge
            fill[band] += 1
        }
        return (ringBandBase, counts, edges)
    }

    static func cell(latitude: Int32, longitude: Int32) -> Int {
        let row = min(179, max(0, Int((Int64(latitude) + 90_000_000) / 1_000_000)))
        let column = min(359, max(0, Int((Int64(longitude) + 180_000_000) / 1_000_000)))
        return row * 360 + column
    }

    private static func buildCells(
        minLat: [Int32], maxLat: [Int32], minLon: [Int32], maxLon: [Int32]
    ) -> ([Int32], [Int32]) {
        // Two passes (count, then fill) into one flat array: no per-cell arrays to allocate.
        var starts = [Int32](repeating: 0, count: 360 * 180 + 1)
        func forEachCell(_ body: (Int, Int32) -> Void) {
            for ring in minLat.indices {
                let low = cell(latitude: minLat[ring], longitude: minLon[ring])
                let high = cell(latitude: maxLat[ring], longitude: maxLon[ring])
                for row in low / 360...high / 360 {
                    for column in low % 360...high % 360 { body(row * 360 + column, Int32(ring)) }
                }
            }
        }
        forEachCell { cell, _ in starts[cell + 1] += 1 }
        for cell in 0..<360 * 180 { starts[cell + 1] += starts[cell] }
        var fill = starts
        var rings = [Int32](repeating: 0, count: Int(starts[360 * 180]))
        forEachCell { cell, ring in
            rings[Int(fill[cell])] = ring
            fill[cell] += 1
        }
        return (starts, rings)
    }

    /// The index of the country (Natural Earth feature) containing the point, or nil at sea.
    ///
    /// Where features overlap (Natural Earth's Italy has no holes for the Vatican and San Marino), the
    /// one whose containing ring has the smallest bounding box wins: the enclave, not its surroundings.
    ///
    /// - Parameters: latitude and longitude in microdegrees (−90…90°, −180…180°).
    func country(latitude: Int32, longitude: Int32) -> Int? {
        switch raster.answer(latitude: latitude, longitude: longitude) {
        case .sea: nil
        case .country(let index): index
        case .test: countryByPolygons(latitude: latitude, longitude: longitude)
        }
    }

    /// `country(latitude:longitude:)` by the polygon test alone, without the raster.
    func countryByPolygons(latitude: Int32, longitude: Int32) -> Int? {
        let cell = Self.cell(latitude: latitude, longitude: longitude)
        var current: Int32 = -1
        var inside = false
        var smallestRing = Int64.max  // bounding-box area of the innermost ring seen for `current`
        var best: Int?
        var bestArea = Int64.max
        func settle() {
            if inside, smallestRing < bestArea {
                best = Int(current)
                bestArea = smallestRing
            }
        }
        for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
            let ring = Int(cellRings[slot])
            if ringCountry[ring] != current {
                settle()
                current = ringCountry[ring]
                inside = false
                smallestRing = .max
            }
            guard latitude >= ringMinLat[ring], latitude <= ringMaxLat[ring],
                  longitude >= ringMinLon[ring], longitude <= ringMaxLon[ring] else { continue }
            if crossesOddly(ring: ring, latitude: latitude, longitude: longitude) {
                inside.toggle()
                let area = Int64(ringMaxLat[ring] - ringMinLat[ring]) * Int64(ringMaxLon[ring] - ringMinLon[ring])
                smallestRing = min(smallestRing, area)
            }
        }
        settle()
        return best
    }

    /// Even-odd test of an eastward ray from the point against one ring, in exact integer arithmetic.
    private func crossesOddly(ring: Int, latitude py: Int32, longitude px: Int32) -> Bool {
        let band = Int(ringBandBase[ring]) + Int((py - ringMinLat[ring]) / Self.bandHeight)
        var odd = false
        let y = Int64(py), x = Int64(px)
        vertexLatitude.withUnsafeBufferPointer { lat in
            vertexLongitude.withUnsafeBufferPointer { lon in
                for slot in Int(bandStart[band])..<Int(bandStart[band + 1]) {
                    let i = Int(bandEdges[slot])
                    let y1 = Int64(lat[i]), y2 = Int64(lat[i + 1])
                    guard (y1 > y) != (y2 > y) else { continue }
                    let x1 = Int64(lon[i]), x2 = Int64(lon[i + 1])
                    // x < x1 + (y - y1)(x2 - x1)/(y2 - y1), multiplied through by (y2 - y1) with its sign.
                    let lhs = (x - x1) * (y2 - y1)
                    let rhs = (y - y1) * (x2 - x1)
                    if y2 > y1 ? lhs < rhs : lhs > rhs { odd.toggle() }
                }
            }
        }
        return odd
    }
}

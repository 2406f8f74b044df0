import Foundation

extension Gazetteer {
    /// Metres per degree of latitude on a sphere of the WGS84 mean radius (6 371 008.8 m).
    static let metresPerDegree = 111_195.08

    /// The radius (m) of the area a populated place is taken to cover: 500 m + 8 m·√population
    /// (1 000 people → 750 m, 100 000 → 3 km, 3.4 million (Berlin) → 15 km, against 17 km for a circle of
    /// Berlin's 891 km²). A rule of thumb fitted to city areas, not a measured boundary; it ranks places
    /// and sizes the placemark's `region`.
    static func coverageRadius(population: UInt32) -> Double {
        500 + 8 * Double(population).squareRoot()
    }

    /// How far (m) from a place a point may be for the place to be its locality or district: max(3 radii, 15 km).
    static func localityReach(population: UInt32) -> Double {
        max(3 * coverageRadius(population: population), 15_000)
    }

    /// How far (m) from a place a point outside every polygon may be and still take the place's country.
    static let coastalReach = 3_000.0

    /// How far (m) the nearest place may be for its administrative areas to be reported without a locality.
    static let adminAreaReach = 200_000.0

    /// Reverse-geocodes a coordinate (degrees, WGS84).
    ///
    /// - Country: the Natural Earth polygon containing the point. A point in no polygon but within 3 km of
    ///   a GeoNames place takes that place's country (coastlines at 1:10m are ~100 m off, harbours and
    ///   beaches fall outside); otherwise it is at sea and the answer is nil.
    /// - Candidates: places of that country within the 5×5 cell window (0.25° cells, so at least ±0.5°).
    /// - Locality: the most populous candidate whose coverage circle contains the point (so a point in
    ///   Berlin-Mitte is in Berlin); if none does, the candidate with the smallest distance ÷ coverage
    ///   radius, accepted within max(3 radii, 15 km). Its admin names, time zone and its coverage circle
    ///   (the `region`) complete the answer.
    /// - Sub-locality: the candidate with the smallest distance ÷ radius, when that is a smaller place
    ///   inside the locality's circle (GeoNames lists city districts as places: "Mitte" in Berlin).
    /// - Without an accepted locality, the nearest place of the same country (searched up to 10° away)
    ///   gives the time zone, and the administrative areas if it is within 200 km (`adminAreaReach`;
    ///   farther, its division is a guess: Svalbard is Norway's in Natural Earth but has no Norwegian
    ///   places, and the nearest one is on the mainland); locality stays nil.
    ///
    /// Distances use the equirectangular approximation at the query's latitude (within a few tenths of a
    /// percent of the geodesic over tens of kilometres, worse far away and near the poles): they rank
    /// candidates and are never reported.
    /// Throws `.invalidInput` for NaN, infinite or out-of-range coordinates.
    public func reverse(latitude: Double, longitude: Double, language: String? = nil) throws(GeocodingError)
        -> GeocodedPlace?
    {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw GeocodingError(.invalidInput, "the coordinate is not a valid latitude/longitude")
        }
        return reverseValid(latitude: latitude, longitude: longitude, language: language)
    }

    /// `reverse(latitude:longitude:language:)` for a coordinate already checked to be valid.
    func reverseValid(latitude: Double, longitude: Double, language: String?) -> GeocodedPlace? {
        locate(latitude: latitude, longitude: longitude)
            .map { place(for: $0, latitude: latitude, longitude: longitude, language: language) }
    }

    /// The look-up of `reverse(latitude:longitude:language:)` (a valid coordinate), as indices; nil at sea.
    /// `hint`: the previous point's location in a batch; when it is in the same country, its anchor seeds the
    /// nearest-place search (the same answer, found sooner: `PlaceTree.nearest(seed:)`).
    func locate(latitude: Double, longitude: Double, hint: ReverseLocation? = nil) -> ReverseLocation? {
        let lat = Int32((latitude * 1e6).rounded())
        let lon = Int32((longitude * 1e6).rounded())
        let cosLat = cos(latitude * .pi / 180)
        var countryIndex = polygons.country(latitude: lat, longitude: lon)
        var countryCode = countryIndex.map { Int32(countries[$0].iso2) }
        if countryIndex == nil {
            guard let coastal = nearestPlace(lat: lat, lon: lon, cosLat: cosLat, within: Self.coastalReach)
            else { return nil }
            countryCode = places.country[coastal.index]
            countryIndex = countryByCode[Int(places.country[coastal.index])]
        }
        let code = countryCode.flatMap { $0 == 0 ? nil : $0 }
        var location = ReverseLocation(countryIndex: countryIndex.map { Int32($0) } ?? -1, code: code ?? 0)
        let (locality, district) = bestLocality(lat: lat, lon: lon, cosLat: cosLat, country: code)
        if let locality {
            location.locality = Int32(locality)
        } else if let code,
                  // The country's places in the tree (none: no time zone) by index, without hashing; near a
                  // coast, the nearest place's code may have no feature: then by code.
                  case let block = countryIndex.map({ countryPlaces[$0] }) ?? placeTree.blocks[code] ?? 0..<0,
                  !block.isEmpty,
                  case let seed = hint.flatMap({ $0.code == code && $0.anchorSlot >= 0 ? Int($0.anchorSlot) : nil }),
                  let anchor = anchorPlace(
                      lat: lat, lon: lon, cosLat: cosLat, country: code, block: block, seed: seed) {
            location.anchor = Int32(anchor.index)
            location.anchorSlot = Int32(anchor.slot)
            location.anchorGivesAdminAreas = anchor.distance <= Self.adminAreaReach
        }
        if let district { location.district = Int32(district) }
        return location
    }

    /// The answer for what `locate` found at the coordinate (degrees).
    func place(for location: ReverseLocation, latitude: Double, longitude: Double, language: String?)
        -> GeocodedPlace
    {
        let isoCountryCode = location.code == 0 ? nil : text[Int(location.code)]
        let country = countryName(countryIndex: location.countryIndex < 0 ? nil : Int(location.countryIndex),
                                  code: isoCountryCode, language: language)
        var administrativeArea: String?
        var subAdministrativeArea: String?
        var timeZone: String?
        var localityName: String?
        var region: (latitude: Double, longitude: Double, radius: Double)?
        if location.locality >= 0 {
            let locality = Int(location.locality)
            administrativeArea = text.optional(Int(places.admin1[locality]))
            subAdministrativeArea = text.optional(Int(places.admin2[locality]))
            timeZone = text.optional(Int(places.timeZone[locality]))
            localityName = placeName(locality, language: language)
            region = (Double(places.latitude[locality]) / 1e6, Double(places.longitude[locality]) / 1e6,
                      Self.coverageRadius(population: places.population[locality]))
        } else if location.anchor >= 0 {
            let anchor = Int(location.anchor)
            timeZone = text.optional(Int(places.timeZone[anchor]))
            if location.anchorGivesAdminAreas {
                administrativeArea = text.optional(Int(places.admin1[anchor]))
                subAdministrativeArea = text.optional(Int(places.admin2[anchor]))
            }
        }
        let subLocality = location.district >= 0 ? placeName(Int(location.district), language: language) : nil
        return GeocodedPlace(
            latitude: latitude, longitude: longitude, name: localityName ?? administrativeArea ?? country,
            locality: localityName, subLocality: subLocality, administrativeArea: administrativeArea,
            subAdministrativeArea: subAdministrativeArea, isoCountryCode: isoCountryCode, country: country,
            timeZone: timeZone, region: region)
    }

    func distance(_ index: Int, lat: Int32, lon: Int32, cosLat: Double) -> Double {
        let dy = Double(places.latitude[index] - lat)
        var dxDegrees = Double(places.longitude[index] - lon)
        if dxDegrees > 180e6 { dxDegrees -= 360e6 } else if dxDegrees < -180e6 { dxDegrees += 360e6 }
        let dx = dxDegrees * cosLat
        return (dx * dx + dy * dy).squareRoot() * Self.metresPerDegree / 1e6
    }

    /// The locality and, when different, the district (see `reverse`).
    private func bestLocality(lat: Int32, lon: Int32, cosLat: Double, country: Int32?) -> (Int?, Int?) {
        // No place reaches this cell: no candidate (most land points without a locality end here).
        guard placeGrid.mayReach(latitude: lat, longitude: lon) else { return (nil, nil) }
        var nearest: Int?
        var nearestScore = Double.infinity
        var covering: Int?
        // The grid skips the places of other countries and those beyond their reach (neither can be chosen).
        placeGrid.forEachPlace(near: lat, longitude: lon, radius: 2, country: country, cosLat: cosLat) { index in
            let d = distance(index, lat: lat, lon: lon, cosLat: cosLat)
            let radius = Self.coverageRadius(population: places.population[index])
            if d <= radius, places.population[index] > covering.map({ places.population[$0] }) ?? 0 {
                covering = index
            }
            guard d <= Self.localityReach(population: places.population[index]) else { return }
            let score = d / radius
            if score < nearestScore {
                nearestScore = score
                nearest = index
            }
        }
        guard let covering else { return (nearest, nil) }
        let district = nearest.flatMap { $0 != covering && places.name[$0] != places.name[covering] ? $0 : nil }
        return (covering, district)
    }

    /// How far (rows of 0.25° cells, 10°) the nearest place of the country is searched for the time zone.
    static let anchorRadius = 40

    /// The nearest place of the country for a point without a locality: what `nearestPlace(…, country:,
    /// maxRadius: anchorRadius)` returns, found in the country's k-d tree. The window search stops at the nearest
    /// place once it is within its window's radius, so the two agree whenever the nearest place is within
    /// `anchorRadius` rows; farther (rare: the interior of Greenland's ice), the window search answers, as before.
    /// `block`, when given, is the country's `placeTree.blocks` entry.
    /// `seed`: a slot of the country's tree to start from (`PlaceTree.nearest(seed:)`). The answer's `slot` is the
    /// tree's slot of the place, or -1 when the window search answered.
    func anchorPlace(
        lat: Int32, lon: Int32, cosLat: Double, country: Int32?, block: Range<Int>? = nil, seed: Int? = nil
    ) -> (index: Int, distance: Double, slot: Int)? {
        if let country,
           let nearest = placeTree.nearest(
               country: country, block: block, seed: seed, latitude: lat, longitude: lon, cosLat: cosLat),
           nearest.distance <= Double(Self.anchorRadius) * 0.25 * Self.metresPerDegree {
            return nearest
        }
        return nearestPlace(lat: lat, lon: lon, cosLat: cosLat, country: country, maxRadius: Self.anchorRadius)
            .map { ($0.index, $0.distance, -1) }
    }

    /// The nearest place (optionally of one country) within `maxRadius` rows of 0.25° cells, by the
    /// equirectangular distance at the query's latitude. Windows grow by one row of cells a step and
    /// by 1/cos φ columns, so they stay about square on the ground even near the poles; the search stops
    /// once nothing outside the window can be nearer (it is at least `rows` × 0.25° away).
    func nearestPlace(lat: Int32, lon: Int32, cosLat: Double, country: Int32?, maxRadius: Int)
        -> (index: Int, distance: Double)?
    {
        var best: (index: Int, distance: Double)?
        var inner: (rows: Int, columns: Int)?
        let stretch = 1 / max(cosLat, 1e-3)
        for rows in 0...maxRadius {
            let columns = min(PlaceGrid.columns / 2, Int((Double(rows) * stretch).rounded(.up)))
            let window = (rows: rows, columns: columns)
            placeGrid.forEachPlace(
                latitude: lat, longitude: lon, window: window, excluding: inner, country: country
            ) { index in
                let d = distance(index, lat: lat, lon: lon, cosLat: cosLat)
                if d < best?.distance ?? .infinity { best = (index, d) }
            }
            inner = window
            if let best, best.distance <= Double(rows) * 0.25 * Self.metresPerDegree { return best }
        }
        return best
    }

    /// The nearest place within `metres` (any country), visiting only the cells that circle can reach:
    /// usually one. Most reverse queries are at sea and end here.
    func nearestPlace(lat: Int32, lon: Int32, cosLat: Double, within metres: Double)
        -> (index: Int, distance: Double)?
    {
        let dLat = Int32(metres / Self.metresPerDegree * 1e6) + 1
        let dLon = Int32(min(180e6, metres / Self.metresPerDegree / max(cosLat, 1e-3) * 1e6)) + 1
        var best: (index: Int, distance: Double)?
        placeGrid.forEachPlace(latitudes: lat - dLat...lat + dLat, longitudes: lon - dLon...lon + dLon) { index in
            let d = distance(index, lat: lat, lon: lon, cosLat: cosLat)
            if d <= metres, d < best?.distance ?? .infinity { best = (index, d) }
        }
        return best
    }
}

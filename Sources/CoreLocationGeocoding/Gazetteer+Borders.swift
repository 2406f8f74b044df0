extension Gazetteer {
    /// One ring of a country's Natural Earth 1:10m admin-0 polygon, as stored in the gazetteer.
    ///
    /// A country is the even-odd union of its rings: islands are rings of their own, and holes
    /// (enclaves such as Lesotho inside South Africa) are rings of the surrounding country too.
    public struct BorderRing: Sendable, Hashable {
        /// ISO 3166-1 alpha-2 code of the country; nil for areas without one (e.g. Bir Tawil).
        public var countryCode: String?
        /// Index of the country in the gazetteer: rings with the same index form one country.
        public var country: Int
        /// WGS84 degrees, one per vertex; the last vertex repeats the first.
        public var latitudes: [Double]
        public var longitudes: [Double]
    }

    /// The country rings whose bounding box meets the given box (degrees, WGS84; the box does not
    /// wrap around the antimeridian). Rings are returned whole, in the file's order.
    public func borderRings(
        minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double
    ) -> [BorderRing] {
        let index = polygons
        let south = Int32((max(-90, minLatitude) * 1e6).rounded(.down))
        let north = Int32((min(90, maxLatitude) * 1e6).rounded(.up))
        let west = Int32((max(-180, minLongitude) * 1e6).rounded(.down))
        let east = Int32((min(180, maxLongitude) * 1e6).rounded(.up))
        var rings: [BorderRing] = []
        for ring in index.ringStart.indices {
            guard index.ringMaxLat[ring] >= south, index.ringMinLat[ring] <= north,
                index.ringMaxLon[ring] >= west, index.ringMinLon[ring] <= east
            else { continue }
            let range = Int(index.ringStart[ring])..<Int(index.ringEnd[ring])
            let country = Int(index.ringCountry[ring])
            let code = countries.indices.contains(country) ? strings.optional(countries[country].iso2) : nil
            rings.append(
                BorderRing(
                    countryCode: code, country: country,
                    latitudes: index.vertexLatitude[range].map { Double($0) / 1e6 },
                    longitudes: index.vertexLongitude[range].map { Double($0) / 1e6 }
                )
            )
        }
        return rings
    }
}

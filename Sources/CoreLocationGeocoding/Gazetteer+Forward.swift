import Foundation

/// A circular area that biases forward geocoding (degrees, metres).
public struct SearchRegion: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var radius: Double

    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}

extension Gazetteer {
    /// Most placemarks one forward query returns.
    public static let maximumResults = 10

    /// Finds places named `query.name` whose admin areas or country match every qualifier.
    ///
    /// Matching is on folded text (`GazetteerText.normalize`): case, diacritics and width do not matter,
    /// and alternate names in any script count ("Москва", "東京"). When a name without commas finds
    /// nothing, trailing words are tried as qualifiers ("Paris TX"). Ranking: score =
    /// (1 for the main name, 0.9 for an alternate name) × log10(population + 10); with a region, places
    /// inside it get +100 and others +10·e^(−d/(r + 100 km)). Up to `maximumResults`, best first.
    /// A place found by an alternate name is named by that name ("Москва" answers "Москва", not "Moscow"):
    /// the name the user typed is the one in their language.
    public func forward(_ query: ForwardQuery, region: SearchRegion? = nil, language: String? = nil)
        throws(GeocodingError) -> [GeocodedPlace]
    {
        let index = forward.withLock { cached -> ForwardIndex in
            if let cached { return cached }
            let built = ForwardIndex(self)
            cached = built
            return built
        }
        var attempts = [query]
        if query.qualifiers.isEmpty {
            let words = query.name.split(separator: " ")
            if words.count > 1 {
                for split in stride(from: words.count - 1, through: 1, by: -1) {
                    attempts.append(ForwardQuery(
                        name: words[..<split].joined(separator: " "),
                        qualifiers: [words[split...].joined(separator: " ")]))
                }
            }
        }
        for attempt in attempts {
            let ranked = rank(attempt, index: index, region: region)
            if !ranked.isEmpty {
                return ranked.prefix(Self.maximumResults).map {
                    placemark(for: $0.place, language: language, matchedName: $0.matchedName)
                }
            }
        }
        return []
    }

    private func rank(_ query: ForwardQuery, index: ForwardIndex, region: SearchRegion?)
        -> [(place: Int, matchedName: Int?)]
    {
        let key = GazetteerText.normalize(query.name)
        let entries = index.entries(named: key)
        guard !key.isEmpty, !entries.isEmpty else { return [] }
        let qualifiers = query.qualifiers.map { GazetteerText.normalize($0) }.filter { !$0.isEmpty }
        var best: [Int: (score: Double, matchedName: Int?)] = [:]
        for entry in entries {
            let place = Int(entry.place)
            guard qualifiers.allSatisfy({ matches(place: place, qualifier: $0) }) else { continue }
            var score = (entry.isMainName ? 1.0 : 0.9) * log10(Double(places.population[place]) + 10)
            if let region {
                let d = distanceMetres(place: place, latitude: region.latitude, longitude: region.longitude)
                score += d <= region.radius ? 100 : 10 * exp(-d / (region.radius + 100_000))
            }
            if score > best[place]?.score ?? -.infinity {
                best[place] = (score, entry.isMainName ? nil : Int(entry.name))
            }
        }
        return best.sorted { $0.value.score != $1.value.score ? $0.value.score > $1.value.score : $0.key < $1.key }
            .map { ($0.key, $0.value.matchedName) }
    }

    private static let countryAliases: [String: String] = [
        "usa": "US", "us": "US", "united states of america": "US", "america": "US", "uk": "GB",
        "great britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB", "russia": "RU",
    ]

    private func matches(place: Int, qualifier: String) -> Bool {
        let admin1 = places.admin1[place], admin2 = places.admin2[place], country = places.country[place]
        if admin1 != 0 {
            let name = GazetteerText.normalize(strings[Int(admin1)])
            if name == qualifier { return true }
            if let suffix = abbreviations[AdminKey(country: country, admin1: admin1)],
               GazetteerText.normalize(strings[suffix]) == qualifier { return true }
        }
        if admin2 != 0 {
            let name = GazetteerText.normalize(strings[Int(admin2)])
            if name == qualifier || name == qualifier + " county" { return true }
        }
        let code = strings[Int(country)]
        if GazetteerText.normalize(code) == qualifier || Self.countryAliases[qualifier] == code { return true }
        if let countryIndex = countryByCode[Int(country)],
           GazetteerText.normalize(strings[countries[countryIndex].name]) == qualifier { return true }
        return false
    }

    func distanceMetres(place: Int, latitude: Double, longitude: Double) -> Double {
        let lat = Double(places.latitude[place]) / 1e6, lon = Double(places.longitude[place]) / 1e6
        var dLon = abs(lon - longitude)
        if dLon > 180 { dLon = 360 - dLon }
        let x = dLon * cos((lat + latitude) / 2 * .pi / 180)
        return (x * x + (lat - latitude) * (lat - latitude)).squareRoot() * Self.metresPerDegree
    }

    /// The placemark for one gazetteer place: located at the place, region = its coverage circle.
    func placemark(for place: Int, language: String?, matchedName: Int? = nil) -> GeocodedPlace {
        let lat = Double(places.latitude[place]) / 1e6, lon = Double(places.longitude[place]) / 1e6
        var result = GeocodedPlace(latitude: lat, longitude: lon)
        let name = matchedName.map { strings[$0] } ?? placeName(place, language: language)
        result.name = name
        result.locality = name
        result.administrativeArea = text.optional(Int(places.admin1[place]))
        result.subAdministrativeArea = text.optional(Int(places.admin2[place]))
        let code = text.optional(Int(places.country[place]))
        result.isoCountryCode = code
        result.country = countryName(countryIndex: code.flatMap { _ in countryByCode[Int(places.country[place])] },
                                     code: code, language: language)
        result.timeZone = text.optional(Int(places.timeZone[place]))
        result.regionLatitude = lat
        result.regionLongitude = lon
        result.regionRadius = Self.coverageRadius(population: places.population[place])
        return result
    }
}

import Foundation
import Synchronization

/// The offline gazetteer: GeoNames places, Natural Earth 1:10m country polygons and ISO 3166 names,
/// decoded from the compact `gazetteer.bin` resource (see `scripts/gazetteer-build.py`).
///
/// Immutable once loaded (the forward-search index is built on first use, behind a `Mutex`), so one
/// instance is shared by every geocoder; `Gazetteer.bundled()` loads it once per process.
public final class Gazetteer: Sendable {
    struct Country: Sendable {
        /// String index of the ISO 3166-1 alpha-2 code; 0 for areas without one (e.g. Bir Tawil).
        let iso2: Int
        /// String index of the English name (ISO 3166 common name, else Natural Earth's).
        let name: Int
    }

    /// Places as parallel arrays: coordinates in microdegrees, string indices (0 = none).
    struct Places: Sendable {
        var latitude: [Int32] = []
        var longitude: [Int32] = []
        var population: [UInt32] = []
        var name: [Int32] = []
        var admin1: [Int32] = []
        var admin2: [Int32] = []
        var country: [Int32] = []
        var timeZone: [Int32] = []
        /// Alternate names of place i are `alternates[alternateStart[i]..<alternateStart[i + 1]]`.
        var alternateStart: [Int32] = [0]
        var alternates: [Int32] = []
        var count: Int { latitude.count }
    }

    let strings: StringTable
    /// The strings answers use, decoded (`AnswerStrings`).
    let text: AnswerStrings
    let countries: [Country]
    /// Country index by the string index of its ISO code.
    let countryByCode: [Int: Int]
    let places: Places
    let polygons: CountryIndex
    let placeGrid: PlaceGrid
    let placeTree: PlaceTree
    /// Each country's slot range in `placeTree` (`placeTree.blocks` of its ISO code), by country index; empty when
    /// the country has no code or no places.
    let countryPlaces: [Range<Int>]
    /// ISO 3166-2 code suffixes of first-level divisions: (country code, admin1 name) string indices → suffix.
    let abbreviations: [AdminKey: Int]
    let forward = Mutex<ForwardIndex?>(nil)

    struct AdminKey: Hashable, Sendable {
        let country: Int32
        let admin1: Int32
    }

    /// Decodes and indexes a gazetteer file's bytes.
    ///
    /// Throws `GeocodingError` `.resourceCorrupt` on a bad header, checksum, or section. Takes about 60 ms
    /// in a release build (see `Benchmarks/geocoding`).
    public init(bytes: [UInt8]) throws(GeocodingError) {
        let file = try GazetteerFile(bytes: bytes)
        let strings = try StringTable(file.reader("STRS"))
        var countries: [Country] = []
        var reader = try file.reader("CTRY")
        while !reader.isAtEnd {
            let iso2 = try reader.index(below: strings.count + 1)
            let name = try reader.index(below: strings.count + 1)
            _ = try reader.varint()
            _ = try reader.varint()
            countries.append(Country(iso2: iso2, name: name))
        }
        var countryByCode: [Int: Int] = [:]
        for (index, country) in countries.enumerated() where country.iso2 != 0 && countryByCode[country.iso2] == nil {
            countryByCode[country.iso2] = index
        }
        self.polygons = try CountryIndex(rings: file.reader("RING"), vertices: file.reader("VERT"),
                                         land: file.reader("LAND"), countryCount: countries.count)
        self.places = try Self.decodePlaces(file.reader("PLAC"), stringCount: strings.count)
        var abbreviations: [AdminKey: Int] = [:]
        reader = try file.reader("ABBR")
        while !reader.isAtEnd {
            let country = try reader.index(below: strings.count + 1)
            let admin1 = try reader.index(below: strings.count + 1)
            let suffix = try reader.index(below: strings.count + 1)
            abbreviations[AdminKey(country: Int32(country), admin1: Int32(admin1))] = suffix
        }
        self.strings = strings
        self.text = AnswerStrings(strings, decoding: [
            places.name, places.admin1, places.admin2, places.country, places.timeZone,
            countries.map { Int32($0.iso2) }, countries.map { Int32($0.name) },
        ])
        self.countries = countries
        self.countryByCode = countryByCode
        self.abbreviations = abbreviations
        self.placeGrid = PlaceGrid(
            latitude: places.latitude, longitude: places.longitude, country: places.country,
            reach: places.population.map(Self.localityReach(population:)))
        self.placeTree = try PlaceTree(file.reader("TREE"), latitude: places.latitude, longitude: places.longitude,
                                       country: places.country)
        self.countryPlaces = countries.map { [placeTree] in
            $0.iso2 == 0 ? 0..<0 : placeTree.blocks[Int32($0.iso2)] ?? 0..<0
        }
    }

    private static func decodePlaces(_ reader: ByteReader, stringCount: Int) throws(GeocodingError) -> Places {
        var reader = reader
        var places = Places()
        let limit = stringCount + 1
        var lat: Int64 = 0
        var lon: Int64 = 0
        while !reader.isAtEnd {
            lat += try reader.signed()
            lon += try reader.signed()
            guard abs(lat) <= 90_000_000, abs(lon) <= 180_000_000 else {
                throw GeocodingError(.resourceCorrupt, "place \(places.count) has an out-of-range coordinate")
            }
            places.latitude.append(Int32(lat))
            places.longitude.append(Int32(lon))
            places.population.append(UInt32(clamping: try reader.varint()))
            places.name.append(Int32(try reader.index(below: limit)))
            places.admin1.append(Int32(try reader.index(below: limit)))
            places.admin2.append(Int32(try reader.index(below: limit)))
            places.country.append(Int32(try reader.index(below: limit)))
            places.timeZone.append(Int32(try reader.index(below: limit)))
            let alternateCount = try reader.index(below: 10_000)
            for _ in 0..<alternateCount {
                places.alternates.append(Int32(try reader.index(below: limit)))
            }
            places.alternateStart.append(Int32(places.alternates.count))
        }
        return places
    }

    /// Number of places.
    public var placeCount: Int { places.count }
    /// Number of country polygons (Natural Earth admin-0 features).
    public var countryCount: Int { countries.count }
}

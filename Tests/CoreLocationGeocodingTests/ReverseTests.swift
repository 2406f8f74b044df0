import Foundation
import Testing
@testable import CoreLocationGeocoding

/// Reverse geocoding against places whose country, first-level division and time zone are published
/// facts (national capitals, enclaves, border towns, islands).
@Suite struct ReverseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let latitude: Double
        let longitude: Double
        let country: String
        let locality: String?
        let timeZone: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "Paris centre", latitude: 48.8566, longitude: 2.3522, country: "FR", locality: "Paris",
             timeZone: "Europe/Paris"),
        Case(label: "Vatican City inside Rome", latitude: 41.9033, longitude: 12.4533, country: "VA",
             locality: nil, timeZone: "Europe/Vatican"),
        Case(label: "Maseru, Lesotho (an enclave: a hole in South Africa)", latitude: -29.3167, longitude: 27.4833,
             country: "LS", locality: "Maseru", timeZone: "Africa/Maseru"),
        Case(label: "Bloemfontein, South Africa", latitude: -29.1211, longitude: 26.2140, country: "ZA",
             locality: "Bloemfontein", timeZone: "Africa/Johannesburg"),
        Case(label: "Geneva, 4 km from the French border", latitude: 46.2044, longitude: 6.1432, country: "CH",
             locality: "Genève", timeZone: "Europe/Zurich"),  // GeoNames' name is the local one
        Case(label: "Annemasse, France, next to Geneva", latitude: 46.1934, longitude: 6.2342, country: "FR",
             locality: "Annemasse", timeZone: "Europe/Paris"),
        Case(label: "Honolulu, an island", latitude: 21.3069, longitude: -157.8583, country: "US",
             locality: "Honolulu", timeZone: "Pacific/Honolulu"),
        Case(label: "Valletta, Malta", latitude: 35.8989, longitude: 14.5146, country: "MT", locality: "Valletta",
             timeZone: "Europe/Malta"),
        Case(label: "Kaliningrad exclave", latitude: 54.7104, longitude: 20.4522, country: "RU",
             locality: "Kaliningrad", timeZone: "Europe/Kaliningrad"),
        Case(label: "Sydney", latitude: -33.8688, longitude: 151.2093, country: "AU", locality: "Sydney",
             timeZone: "Australia/Sydney"),
        Case(label: "Tokyo", latitude: 35.6895, longitude: 139.6917, country: "JP", locality: "Tokyo",
             timeZone: "Asia/Tokyo"),
        Case(label: "Chicago", latitude: 41.8781, longitude: -87.6298, country: "US", locality: "Chicago",
             timeZone: "America/Chicago"),
    ]

    @Test(arguments: cases) func knownPlace(_ c: Case) throws {
        let place = try #require(try Gazetteer.bundled().reverse(latitude: c.latitude, longitude: c.longitude))
        #expect(place.isoCountryCode == c.country)
        if let locality = c.locality { #expect(place.locality == locality) }
        #expect(place.timeZone == c.timeZone)
        #expect(place.name != nil)
    }

    @Test func adminAreasAndRegion() throws {
        let place = try #require(try Gazetteer.bundled().reverse(latitude: 39.7817, longitude: -89.6501))
        #expect(place.locality == "Springfield")
        #expect(place.administrativeArea == "Illinois")
        #expect(place.subAdministrativeArea == "Sangamon County")
        #expect(place.country == "United States")
        let radius = try #require(place.regionRadius)
        #expect(radius > 1_000 && radius < 20_000)
    }

    @Test func remoteLandHasCountryAndZoneButNoGuessedDivision() throws {
        // Inland ice of Greenland, 300+ km from any settlement.
        let ice = try #require(try Gazetteer.bundled().reverse(latitude: 75, longitude: -40))
        #expect(ice.isoCountryCode == "GL")
        #expect(ice.locality == nil)
        #expect(ice.administrativeArea == nil)
        #expect(ice.timeZone?.hasPrefix("America/") == true)
    }

    @Test(arguments: [(0.0, -30.0), (-40.0, -120.0), (30.0, 160.0), (-50.0, 80.0)])
    func openSeaHasNoPlace(latitude: Double, longitude: Double) throws {
        #expect(try Gazetteer.bundled().reverse(latitude: latitude, longitude: longitude) == nil)
    }

    @Test func preferredLanguageNamesTheCountryAndPicksScript() throws {
        let gazetteer = try Gazetteer.bundled()
        let french = try #require(try gazetteer.reverse(latitude: 52.52, longitude: 13.405, language: "fr"))
        #expect(french.country == "Allemagne")
        let russian = try #require(try gazetteer.reverse(latitude: 35.6895, longitude: 139.6917, language: "ru"))
        #expect(russian.locality == "Токио")
        #expect(russian.country == "Япония")
        let unknown = try #require(try gazetteer.reverse(latitude: 52.52, longitude: 13.405, language: "xx"))
        #expect(unknown.country == "Germany")
        #expect(unknown.locality == "Berlin")
        #expect(unknown.subLocality == "Mitte")
    }

    @Test(arguments: [Double.nan, .infinity, 91, -90.5])
    func invalidLatitudeIsRefused(latitude: Double) throws {
        #expect(throws: GeocodingError.self) { try Gazetteer.bundled().reverse(latitude: latitude, longitude: 0) }
    }

    @Test func invalidLongitudeIsRefused() throws {
        #expect(throws: GeocodingError.self) { try Gazetteer.bundled().reverse(latitude: 0, longitude: 180.5) }
        #expect(throws: GeocodingError.self) { try Gazetteer.bundled().reverse(latitude: 0, longitude: .nan) }
    }
}

extension ReverseTests {
    /// The grid search finds the same nearest place as a scan of all 155 210 places (seeded points,
    /// including near the poles and the antimeridian, where the window is widest).
    @Test func nearestPlaceMatchesBruteForce() throws {
        let gazetteer = try Gazetteer.bundled()
        var generator = SplitMix64(seed: 2026)
        var points: [(Double, Double)] = [(89.9, 0), (-89.9, 10), (70, 179.99), (65, -179.99), (0, 180)]
        for _ in 0..<60 {
            let z = Double(generator.next() % 2_000_001) / 1_000_000 - 1
            points.append((asin(z) * 180 / .pi, Double(generator.next() % 360_000_001) / 1_000_000 - 180))
        }
        for (latitude, longitude) in points {
            let lat = Int32((latitude * 1e6).rounded()), lon = Int32((longitude * 1e6).rounded())
            let cosLat = cos(latitude * .pi / 180)
            var best = Double.infinity
            for index in 0..<gazetteer.placeCount {
                best = min(best, gazetteer.distance(index, lat: lat, lon: lon, cosLat: cosLat))
            }
            let found = gazetteer.nearestPlace(lat: lat, lon: lon, cosLat: cosLat, country: nil, maxRadius: 720)
            #expect(found?.distance == best, "\(latitude), \(longitude)")
        }
    }

    /// The coastal look-up (nearest place within 3 km, cells the circle reaches) agrees with a full scan,
    /// on seeded points scattered up to ~5 km around real places, including at ±180° and high latitude.
    @Test func nearestWithinReachMatchesBruteForce() throws {
        let gazetteer = try Gazetteer.bundled()
        var generator = SplitMix64(seed: 3_000)
        var points: [(Double, Double)] = [(-16.78, 179.99), (-16.78, -179.99), (78.22, 15.64), (64.1, -21.9)]
        for _ in 0..<80 {
            let place = Int(generator.next() % UInt64(gazetteer.placeCount))
            let jitterLat = Double(Int(generator.next() % 90_001) - 45_000) / 1e6
            let jitterLon = Double(Int(generator.next() % 90_001) - 45_000) / 1e6
            let lat = Double(gazetteer.places.latitude[place]) / 1e6 + jitterLat
            var lon = Double(gazetteer.places.longitude[place]) / 1e6 + jitterLon
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            points.append((max(-90, min(90, lat)), lon))
        }
        for (latitude, longitude) in points {
            let lat = Int32((latitude * 1e6).rounded()), lon = Int32((longitude * 1e6).rounded())
            let cosLat = cos(latitude * .pi / 180)
            var best: Double?
            for index in 0..<gazetteer.placeCount {
                let d = gazetteer.distance(index, lat: lat, lon: lon, cosLat: cosLat)
                if d <= 3_000, d < best ?? .infinity { best = d }
            }
            let found = gazetteer.nearestPlace(lat: lat, lon: lon, cosLat: cosLat, within: 3_000)
            #expect(found?.distance == best, "\(latitude), \(longitude)")
        }
    }
}

import Foundation
import Testing
@testable import CoreLocationGeocoding

@Suite struct ForwardTests {
    func search(_ text: String, region: SearchRegion? = nil, language: String? = nil) throws -> [GeocodedPlace] {
        try Gazetteer.bundled().forward(ForwardQuery(text: text), region: region, language: language)
    }

    @Test func parisIsFranceFirstThenOthers() throws {
        let results = try search("Paris")
        #expect(results.first?.isoCountryCode == "FR")
        #expect(results.count > 1)
        #expect(results.contains { $0.isoCountryCode == "US" && $0.administrativeArea == "Texas" })
    }

    @Test func qualifiersPickTheState() throws {
        let texas = try search("Paris, TX")
        #expect(texas.first?.administrativeArea == "Texas")
        #expect(texas.allSatisfy { $0.administrativeArea == "Texas" })
        let spaced = try search("Paris TX")
        #expect(spaced.first?.administrativeArea == "Texas")
        let illinois = try search("Springfield, Illinois")
        #expect(illinois.first?.administrativeArea == "Illinois")
        #expect(abs((illinois.first?.latitude ?? 0) - 39.80) < 0.05)
    }

    @Test func otherScriptsAndFolding() throws {
        let moscow = try #require(try search("Москва").first)
        #expect(moscow.isoCountryCode == "RU")
        #expect(moscow.name == "Москва")  // the name the user typed, not GeoNames' "Moscow"
        #expect(abs(moscow.latitude - 55.75) < 0.05 && abs(moscow.longitude - 37.62) < 0.05)
        #expect(try search("東京").first?.isoCountryCode == "JP")
        #expect(try search("ZÜRICH").first?.isoCountryCode == "CH")
        #expect(try search("zurich").first?.isoCountryCode == "CH")
        #expect(try search("ｐａｒｉｓ").first?.isoCountryCode == "FR")
    }

    @Test func regionBiasPrefersNearbyPlace() throws {
        let nearTexas = SearchRegion(latitude: 33.66, longitude: -95.55, radius: 50_000)
        #expect(try search("Paris", region: nearTexas).first?.administrativeArea == "Texas")
    }

    @Test func unknownNameFindsNothing() throws {
        #expect(try search("Qwzxqv Nowhereville").isEmpty)
        #expect(try search("Paris, Atlantis").isEmpty)
    }

    @Test func normalization() {
        #expect(GazetteerText.normalize("Saint-Étienne") == "saint etienne")
        #expect(GazetteerText.normalize("  ＴＯＫＹＯ  ") == "tokyo")
        #expect(GazetteerText.normalize("São Paulo") == "sao paulo")
    }

    @Test func emptyAndHugeTextAreInvalid() {
        #expect(throws: GeocodingError.self) { try ForwardQuery(text: "   ") }
        #expect(throws: GeocodingError.self) { try ForwardQuery(text: " , ,\n") }
        #expect(throws: GeocodingError.self) { try ForwardQuery(text: String(repeating: "a", count: 1_000_001)) }
    }

    @Test func coordinateText() {
        #expect(ForwardQuery.coordinate(in: "48.85, 2.35")?.latitude == 48.85)
        #expect(ForwardQuery.coordinate(in: "48.85 2.35")?.longitude == 2.35)
        #expect(ForwardQuery.coordinate(in: "95, 2") == nil)
        #expect(ForwardQuery.coordinate(in: "Paris") == nil)
    }
}

extension ForwardTests {
    /// The ASCII fast path must fold exactly as the Unicode path does: compare on every printable ASCII
    /// character, alone and between letters.
    @Test func asciiFastPathMatchesUnicodePath() {
        for code in UInt8(0x20)...UInt8(0x7E) {
            let c = Character(Unicode.Scalar(code))
            for text in ["\(c)", "a\(c)b", " \(c)\(c) X"] {
                // Appending "é" forces the Unicode path; folding "é" gives "e", so compare with that removed.
                let unicode = GazetteerText.normalize(text + "é")
                #expect(unicode.hasSuffix("e"))
                #expect(GazetteerText.normalize(text) + (unicode.dropLast().last == " " ? " " : "") + "e" == unicode,
                        "\(text)")
            }
        }
    }
}

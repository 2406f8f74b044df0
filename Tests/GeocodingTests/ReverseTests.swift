import Foundation
import Testing
@testable import Geocoding

@Suite struct ReverseTests {
    @Test func paris() throws {
        let gazetteer = try Gazetteer.bundled()
        let place = try #require(try gazetteer.reverse(latitude: 48.8566, longitude: 2.3522))
        print(place)
        #expect(place.isoCountryCode == "FR")
        #expect(place.locality == "Paris")
        let clock = ContinuousClock()
        let t = clock.measure { _ = try? Gazetteer.load(from: Gazetteer.locateResource()) }
        print("load", t)
        let f = try gazetteer.forward(ForwardQuery(text: "Paris, TX"))
        print(f)
        print(try gazetteer.forward(ForwardQuery(text: "東京"), language: "ja").first as Any)
        print(try gazetteer.forward(ForwardQuery(text: "Springfield, Illinois")).first as Any)
    }
}

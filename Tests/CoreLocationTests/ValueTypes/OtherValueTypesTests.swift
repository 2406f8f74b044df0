import CoreLocation
import Foundation
import Testing

@Suite("CLHeading, CLVisit, CLBeacon, CLFloor, CLPlacemark, CNPostalAddress")
struct OtherValueTypesTests {
    static let october3 = Date(timeIntervalSince1970: 1_727_991_667)

    static func archived<T: NSObject & NSSecureCoding>(_ object: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }

    @Test func headingDescriptionAndArchive() throws {
        let heading = CLHeading(
            magneticHeading: 12, trueHeading: 14.5, headingAccuracy: 5, x: 1.25, y: -2, z: 30.5,
            timestamp: Self.october3
        )
        let text = heading.description(
            locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: "America/Los_Angeles")!
        ).replacingOccurrences(of: "\u{202F}", with: " ")
        #expect(
            text == "magneticHeading 12.00 trueHeading 14.50 accuracy 5.00 x +1.250 y -2.000 z +30.500 @ "
                + "10/3/24, 2:41:07 PM Pacific Daylight Time"
        )
        let decoded = try #require(try Self.archived(heading))
        #expect(decoded.magneticHeading == 12 && decoded.trueHeading == 14.5 && decoded.headingAccuracy == 5)
        #expect(decoded.x == 1.25 && decoded.y == -2 && decoded.z == 30.5 && decoded.timestamp == Self.october3)
    }

    @Test func headingDoubleCanOverride() {
        final class MockHeading: CLHeading, @unchecked Sendable {
            override var trueHeading: CLLocationDirection { 42 }
        }
        let mock = MockHeading()
        #expect(mock.trueHeading == 42 && mock.headingAccuracy == -1)
    }

    @Test func visitDefaultsAndArchive() throws {
        let empty = CLVisit()
        #expect(empty.arrivalDate == .distantPast && empty.departureDate == .distantFuture)
        #expect(!CLLocationCoordinate2DIsValid(empty.coordinate) && empty.horizontalAccuracy == -1)
        let visit = CLVisit(
            arrivalDate: Self.october3, departureDate: .distantFuture,
            coordinate: CLLocationCoordinate2D(latitude: 1, longitude: 2), horizontalAccuracy: 30
        )
        let decoded = try #require(try Self.archived(visit))
        #expect(decoded.arrivalDate == Self.october3 && decoded.departureDate == .distantFuture)
        #expect(decoded.coordinate == CLLocationCoordinate2D(latitude: 1, longitude: 2))
        #expect(decoded.horizontalAccuracy == 30)
    }

    @available(*, deprecated, message: "reads proximityUUID")
    @Test func beaconValuesAndArchive() throws {
        let uuid = UUID()
        let beacon = CLBeacon(
            uuid: uuid, major: 65535, minor: 0, proximity: .near, accuracy: 1.5, rssi: -70, timestamp: Self.october3
        )
        #expect(beacon.proximityUUID == uuid && beacon.major == NSNumber(value: 65535) && beacon.minor.intValue == 0)
        let decoded = try #require(try Self.archived(beacon))
        #expect(decoded.uuid == uuid && decoded.major.intValue == 65535 && decoded.proximity == .near)
        #expect(decoded.accuracy == 1.5 && decoded.rssi == -70 && decoded.timestamp == Self.october3)
        #expect(CLBeacon().proximity == .unknown && CLBeacon().accuracy == -1)
    }

    @Test func floorArchives() throws {
        #expect(try Self.archived(CLFloor(level: -3))?.level == -3)
        #expect(CLFloor().level == 0)
    }

    static func eiffel() -> CLPlacemark {
        CLPlacemark(
            location: CLLocation(latitude: 48.8584, longitude: 2.2945),
            name: "Tour Eiffel", thoroughfare: "Avenue Anatole France", subThoroughfare: "5",
            locality: "Paris", subLocality: "7e Arrondissement", administrativeArea: "Île-de-France",
            subAdministrativeArea: "Paris", postalCode: "75007", isoCountryCode: "FR", country: "France",
            areasOfInterest: ["Tour Eiffel", "Champ de Mars"], timeZone: TimeZone(identifier: "Europe/Paris"),
            region: CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945), radius: 70, identifier: "eiffel"
            )
        )
    }

    @available(*, deprecated, message: "reads addressDictionary")
    @Test func placemarkAddressDictionaryUsesLegacyKeys() throws {
        let dictionary = try #require(Self.eiffel().addressDictionary)
        #expect(dictionary["Name"] as? String == "Tour Eiffel")
        #expect(dictionary["Street"] as? String == "5 Avenue Anatole France")
        #expect(dictionary["Thoroughfare"] as? String == "Avenue Anatole France")
        #expect(dictionary["SubThoroughfare"] as? String == "5")
        #expect(dictionary["City"] as? String == "Paris")
        #expect(dictionary["SubLocality"] as? String == "7e Arrondissement")
        #expect(dictionary["State"] as? String == "Île-de-France")
        #expect(dictionary["SubAdministrativeArea"] as? String == "Paris")
        #expect(dictionary["ZIP"] as? String == "75007")
        #expect(dictionary["Country"] as? String == "France")
        #expect(dictionary["CountryCode"] as? String == "FR")
        #expect(dictionary["FormattedAddressLines"] as? [String]
            == ["Tour Eiffel", "5 Avenue Anatole France", "Paris Île-de-France 75007", "France"])
        #expect(CLPlacemark().addressDictionary == nil)
    }

    @Test func placemarkPostalAddress() throws {
        let address = try #require(Self.eiffel().postalAddress)
        #expect(address.street == "5 Avenue Anatole France" && address.city == "Paris")
        #expect(address.state == "Île-de-France" && address.postalCode == "75007")
        #expect(address.subLocality == "7e Arrondissement" && address.subAdministrativeArea == "Paris")
        #expect(address.country == "France" && address.isoCountryCode == "FR")
        #expect(CLPlacemark().postalAddress == nil)
    }

    @Test func placemarkCopyAndArchive() throws {
        let original = Self.eiffel()
        for copy in [CLPlacemark(placemark: original), try #require(try Self.archived(original))] {
            #expect(copy.name == "Tour Eiffel" && copy.locality == "Paris" && copy.isoCountryCode == "FR")
            #expect(copy.thoroughfare == original.thoroughfare && copy.subThoroughfare == "5")
            #expect(copy.areasOfInterest == ["Tour Eiffel", "Champ de Mars"])
            #expect(copy.timeZone?.identifier == "Europe/Paris")
            #expect(copy.location?.coordinate == CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945))
            #expect((copy.region as? CLCircularRegion)?.radius == 70)
            #expect(copy.ocean == nil && copy.inlandWater == nil)
            #expect(copy.postalAddress == original.postalAddress)
        }
    }

    @Test func mutablePostalAddress() throws {
        let mutable = CNMutablePostalAddress()
        #expect(mutable.street.isEmpty)
        mutable.street = "1 Infinite Loop"
        mutable.city = "Cupertino"
        mutable.state = "CA"
        mutable.postalCode = "95014"
        mutable.country = "United States"
        mutable.isoCountryCode = "US"
        mutable.subLocality = "x"
        mutable.subAdministrativeArea = "Santa Clara"
        let frozen = try #require(mutable.copy() as? CNPostalAddress)
        #expect(!(frozen is CNMutablePostalAddress))
        #expect(frozen == mutable && frozen.city == "Cupertino")
        mutable.city = "Palo Alto"
        #expect(frozen.city == "Cupertino" && frozen != mutable)
        let again = try #require(frozen.mutableCopy() as? CNMutablePostalAddress)
        #expect(again == frozen)
        let decoded = try #require(try Self.archived(frozen))
        #expect(decoded == frozen && decoded.subAdministrativeArea == "Santa Clara")
    }
}

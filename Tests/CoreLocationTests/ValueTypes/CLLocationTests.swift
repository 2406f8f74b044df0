import CoreLocation
import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

@Suite("CLLocation")
struct CLLocationTests {
    /// 2024-10-03 21:41:07 UTC = 2:41:07 PM Pacific Daylight Time.
    static let october3 = Date(timeIntervalSince1970: 1_727_991_667)
    static let applePark = CLLocationCoordinate2D(latitude: 37.33233141, longitude: -122.03121860)

    @Test func latitudeLongitudeDefaults() {
        let before = Date()
        let location = CLLocation(latitude: 48.8566, longitude: 2.3522)
        #expect(location.coordinate == CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522))
        #expect(location.altitude == 0 && location.ellipsoidalAltitude == 0)
        #expect(location.horizontalAccuracy == 0)
        #expect(location.verticalAccuracy == -1)
        #expect(location.course == -1 && location.courseAccuracy == -1)
        #expect(location.speed == -1 && location.speedAccuracy == -1)
        #expect(location.timestamp >= before && location.timestamp <= Date())
        #expect(location.floor == nil && location.sourceInformation == nil)
    }

    @Test func plainInitDefaults() {
        let location = CLLocation()
        #expect(location.coordinate == CLLocationCoordinate2D())
        #expect(location.verticalAccuracy == -1 && location.speed == -1 && location.course == -1)
    }

    @Test func accuracyInitDefaults() {
        let location = CLLocation(
            coordinate: Self.applePark, altitude: 12, horizontalAccuracy: 5, verticalAccuracy: 3,
            timestamp: Self.october3
        )
        #expect(location.altitude == 12 && location.ellipsoidalAltitude == 12)
        #expect(location.horizontalAccuracy == 5 && location.verticalAccuracy == 3)
        #expect(location.course == -1 && location.courseAccuracy == -1)
        #expect(location.speed == -1 && location.speedAccuracy == -1)
        #expect(location.timestamp == Self.october3)
    }

    @Test func courseSpeedInitDefaults() {
        let location = CLLocation(
            coordinate: Self.applePark, altitude: 12, horizontalAccuracy: 5, verticalAccuracy: 3,
            course: 90, speed: 4.5, timestamp: Self.october3
        )
        #expect(location.course == 90 && location.courseAccuracy == -1)
        #expect(location.speed == 4.5 && location.speedAccuracy == -1)
        #expect(location.sourceInformation == nil)
    }

    @Test func fullInitsKeepEveryValue() {
        let location = CLLocation(
            coordinate: Self.applePark, altitude: 12, horizontalAccuracy: 5, verticalAccuracy: 3,
            course: 90, courseAccuracy: 7, speed: 4.5, speedAccuracy: 0.5, timestamp: Self.october3
        )
        #expect(location.courseAccuracy == 7 && location.speedAccuracy == 0.5 && location.sourceInformation == nil)
        let sourced = CLLocation(
            coordinate: Self.applePark, altitude: 12, horizontalAccuracy: 5, verticalAccuracy: 3,
            course: 90, courseAccuracy: 7, speed: 4.5, speedAccuracy: 0.5, timestamp: Self.october3,
            sourceInfo: CLLocationSourceInformation(softwareSimulationState: true, externalAccessoryState: false)
        )
        #expect(sourced.sourceInformation?.isSimulatedBySoftware == true)
        #expect(sourced.sourceInformation?.isProducedByAccessory == false)
        #expect(sourced.ellipsoidalAltitude == 12)
    }

    @Test func sourceInformationDefaults() {
        let info = CLLocationSourceInformation()
        #expect(!info.isSimulatedBySoftware && !info.isProducedByAccessory)
        let accessory = CLLocationSourceInformation(softwareSimulationState: false, externalAccessoryState: true)
        #expect(accessory.isProducedByAccessory && !accessory.isSimulatedBySoftware)
    }

    @Test func descriptionMatchesApplesFormat() {
        let location = CLLocation(
            coordinate: Self.applePark, altitude: 0, horizontalAccuracy: 5, verticalAccuracy: -1,
            course: -1, speed: 0, timestamp: Self.october3
        )
        let text = location.description(
            locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: "America/Los_Angeles")!
        )
        // ICU (like current macOS) puts a narrow no-break space before "PM"; older systems a plain space.
        let normalized = text.replacingOccurrences(of: "\u{202F}", with: " ")
        #expect(
            normalized
                == "<+37.33233141,-122.03121860> +/- 5.00m (speed 0.00 mps / course -1.00) @ "
                + "10/3/24, 2:41:07 PM Pacific Daylight Time"
        )
        #expect(
            location.description.hasPrefix("<+37.33233141,-122.03121860> +/- 5.00m (speed 0.00 mps / course -1.00) @ ")
        )
    }

    @Test func descriptionShowsSignsOnBothAxes() {
        let location = CLLocation(latitude: -33.8688, longitude: 151.2093)
        #expect(
            location.description.hasPrefix("<-33.86880000,+151.20930000> +/- 0.00m (speed -1.00 mps / course -1.00) @ ")
        )
    }

    /// Apple measures 5 585 234 m on current macOS (ellipsoidal, WGS84); GeographicLib 2.x (Python,
    /// `Geodesic.WGS84.Inverse`) gives 5 585 233.579 m, so 1 m covers Apple's rounding. Passes once the Karney
    /// geodesic replaces the spherical placeholder in `Geodesy` (the spherical value is 8.8 km off).
    @Test func distanceNewYorkLondonIsEllipsoidal() {
        let newYork = CLLocation(latitude: 40.7128, longitude: -74.0060)
        let london = CLLocation(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(newYork.distance(from: london) - 5_585_234) < 1)
        #expect(newYork.distance(from: london) == london.distance(from: newYork))
    }

    @Test func distanceOneDegreeOnEquator() {
        let a = CLLocation(latitude: 0, longitude: 0), b = CLLocation(latitude: 0, longitude: 1)
        #expect(abs(a.distance(from: b) - 111_319.4908) < 0.001) // GeographicLib: 111 319.490793 m
        #expect(a.distance(from: a) == 0)
    }

    @Test func distanceWithInvalidCoordinatesDoesNotTrap() {
        let nan = CLLocation(latitude: .nan, longitude: 0)
        let outOfRange = CLLocation(latitude: 91, longitude: 200)
        let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
        // The façade passes the geodesic's answer through, whatever it is for such input.
        for location in [nan, outOfRange] {
            let c = location.coordinate
            let expected = Geodesic.wgs84.inverse(
                latitude1: c.latitude, longitude1: c.longitude, latitude2: 48.8566, longitude2: 2.3522
            ).distance
            let got = location.distance(from: paris)
            #expect(got == expected || (got.isNaN && expected.isNaN))
        }
        #expect(!CLLocationCoordinate2DIsValid(nan.coordinate))
        #expect(!CLLocationCoordinate2DIsValid(outOfRange.coordinate))
    }

    @Test func equalityIsIdentityLikeApples() {
        let a = CLLocation(coordinate: Self.applePark, altitude: 0, horizontalAccuracy: 5, verticalAccuracy: -1,
                           timestamp: Self.october3)
        let b = CLLocation(coordinate: Self.applePark, altitude: 0, horizontalAccuracy: 5, verticalAccuracy: -1,
                           timestamp: Self.october3)
        #expect(a == a)
        #expect(a != b)
        #expect(a.copy() as AnyObject === a)
    }

    static func everyField() -> CLLocation {
        CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 59.3293, longitude: 18.0686),
            altitude: 28.5, ellipsoidalAltitude: 51.25, horizontalAccuracy: 4.5, verticalAccuracy: 6.5,
            course: 271.5, courseAccuracy: 3.25, speed: 12.75, speedAccuracy: 0.75,
            timestamp: Date(timeIntervalSinceReferenceDate: 750_000_000.125),
            floor: CLFloor(level: -2),
            sourceInformation: CLLocationSourceInformation(softwareSimulationState: true, externalAccessoryState: true)
        )
    }

    static func expectSameFields(_ a: CLLocation, _ b: CLLocation) {
        #expect(a.coordinate == b.coordinate)
        #expect(a.altitude == b.altitude && a.ellipsoidalAltitude == b.ellipsoidalAltitude)
        #expect(a.horizontalAccuracy == b.horizontalAccuracy && a.verticalAccuracy == b.verticalAccuracy)
        #expect(a.course == b.course && a.courseAccuracy == b.courseAccuracy)
        #expect(a.speed == b.speed && a.speedAccuracy == b.speedAccuracy)
        #expect(a.timestamp == b.timestamp)
        #expect(a.floor?.level == b.floor?.level)
        #expect(a.sourceInformation?.isSimulatedBySoftware == b.sourceInformation?.isSimulatedBySoftware)
        #expect(a.sourceInformation?.isProducedByAccessory == b.sourceInformation?.isProducedByAccessory)
    }

    @Test func secureArchivingRoundTripsEveryField() throws {
        let original = Self.everyField()
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLLocation.self, from: data))
        Self.expectSameFields(decoded, original)
        #expect(decoded.floor?.level == -2)
        #expect(decoded.sourceInformation?.isProducedByAccessory == true)
    }

    @Test func secureArchivingWithoutOptionals() throws {
        let original = CLLocation(coordinate: Self.applePark, altitude: 3, horizontalAccuracy: 5,
                                  verticalAccuracy: 2, timestamp: Self.october3)
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLLocation.self, from: data))
        Self.expectSameFields(decoded, original)
        #expect(decoded.floor == nil && decoded.sourceInformation == nil)
    }

    @Test func fixRoundTripPreservesEveryField() {
        let fix = Fix(
            latitude: -33.8688, longitude: 151.2093, altitude: 58, ellipsoidalAltitude: 80.5,
            horizontalAccuracy: 3.5, verticalAccuracy: 4.5, course: 12.5, courseAccuracy: 2.5,
            speed: 1.25, speedAccuracy: 0.25, timestamp: Self.october3, floor: 3,
            isSimulated: true, isFromAccessory: false
        )
        let location = CLLocation(fix: fix)
        #expect(location.ellipsoidalAltitude == 80.5)
        #expect(location.floor?.level == 3)
        #expect(location.sourceInformation?.isSimulatedBySoftware == true)
        #expect(location.sourceInformation?.isProducedByAccessory == false)
        #expect(Fix(location) == fix)
        let other = Fix(latitude: 1, longitude: 2, horizontalAccuracy: 9, timestamp: Self.october3,
                        floor: nil, isSimulated: false, isFromAccessory: true)
        #expect(Fix(CLLocation(fix: other)) == other)
    }

    @Test func locationWithoutSourceInformationIsAPlainFix() {
        let fix = Fix(CLLocation(latitude: 1, longitude: 2))
        #expect(!fix.isSimulated && !fix.isFromAccessory && fix.floor == nil)
    }

    /// Test doubles subclass CLLocation and override its properties; the façade's methods must use them.
    @Test func subclassOverridesAreHonoured() {
        final class FixedLocation: CLLocation, @unchecked Sendable {
            override var coordinate: CLLocationCoordinate2D { CLLocationCoordinate2D(latitude: 0, longitude: 1) }
        }
        // A double with its own initializer, as apps write them: needs only what Apple's would need.
        final class MockLocation: CLLocation, @unchecked Sendable {
            init(fixed: CLLocationCoordinate2D) {
                super.init(coordinate: fixed, altitude: 0, horizontalAccuracy: 1, verticalAccuracy: -1, timestamp: .now)
            }
            required init?(coder: NSCoder) { super.init(coder: coder) }
        }
        #expect(MockLocation(fixed: CLLocationCoordinate2D(latitude: 3, longitude: 4)).coordinate.latitude == 3)
        let double = FixedLocation(latitude: 50, longitude: 50)
        #expect(abs(double.distance(from: CLLocation(latitude: 0, longitude: 0)) - 111_319.49) < 0.01)
    }
}

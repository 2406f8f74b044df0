import CoreLocation
import Foundation
import Testing

@Suite("Constants, typealiases, coordinates and enums match Apple's")
struct ConstantsAndEnumsTests {
    @Test func accuracyConstants() {
        #expect(kCLLocationAccuracyBestForNavigation == -2)
        #expect(kCLLocationAccuracyBest == -1)
        #expect(kCLLocationAccuracyNearestTenMeters == 10)
        #expect(kCLLocationAccuracyHundredMeters == 100)
        #expect(kCLLocationAccuracyKilometer == 1000)
        #expect(kCLLocationAccuracyThreeKilometers == 3000)
        #expect(kCLLocationAccuracyReduced == 3000)
    }

    @Test func filterAndLimitConstants() {
        #expect(kCLDistanceFilterNone == -1)
        #expect(kCLHeadingFilterNone == -1)
        #expect(CLLocationDistanceMax == Double.greatestFiniteMagnitude)
        #expect(CLTimeIntervalMax == Double.greatestFiniteMagnitude)
        #expect(CL_TARGET_SUPPORTS_CONDITIONS == 1)
    }

    @Test func errorDomainsAndKeys() {
        #expect(kCLErrorDomain == "kCLErrorDomain")
        #expect(kCLErrorUserInfoAlternateRegionKey == "alternateRegion")
        #expect(CLLocationPushServiceErrorDomain == "CLLocationPushServiceErrorDomain")
    }

    @Test func typealiasesAreApples() {
        // Assignments that compile only with Apple's underlying types.
        let degrees: Double = CLLocationDegrees(1), distance: Double = CLLocationDistance(2)
        let accuracy: Double = CLLocationAccuracy(3), speed: Double = CLLocationSpeed(4)
        let speedAccuracy: Double = CLLocationSpeedAccuracy(5), direction: Double = CLLocationDirection(6)
        let directionAccuracy: Double = CLLocationDirectionAccuracy(7), component: Double = CLHeadingComponentValue(8)
        let major: UInt16 = CLBeaconMajorValue.max, minor: UInt16 = CLBeaconMinorValue.max
        #expect([degrees, distance, accuracy, speed, speedAccuracy, direction, directionAccuracy, component]
            == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(major == 65535 && minor == 65535)
    }

    @Test func coordinateInitializers() {
        let zero = CLLocationCoordinate2D()
        #expect(zero.latitude == 0 && zero.longitude == 0)
        let made = CLLocationCoordinate2DMake(12.5, -7.25)
        #expect(made == CLLocationCoordinate2D(latitude: 12.5, longitude: -7.25))
        #expect(kCLLocationCoordinate2DInvalid == CLLocationCoordinate2D(latitude: -180, longitude: -180))
    }

    @Test(arguments: [
        (90.0, 180.0, true), (-90.0, -180.0, true), (0.0, 0.0, true), (51.5, -0.12, true),
        (90.000001, 0.0, false), (91.0, 0.0, false), (-91.0, 0.0, false), (0.0, 180.000001, false),
        (0.0, -181.0, false), (Double.nan, 0.0, false), (0.0, Double.nan, false),
        (Double.infinity, 0.0, false), (-180.0, -180.0, false),
    ])
    func coordinateValidity(latitude: Double, longitude: Double, valid: Bool) {
        let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        #expect(CLLocationCoordinate2DIsValid(coordinate) == valid)
    }

    @Test func appConformancesWork() throws {
        let a = CLLocationCoordinate2D(latitude: 1, longitude: 2)
        #expect(Set([a, a, CLLocationCoordinate2D(latitude: 2, longitude: 1)]).count == 2)
        let data = try JSONEncoder().encode(a)
        #expect(try JSONDecoder().decode(CLLocationCoordinate2D.self, from: data) == a)
    }

    @Test func authorizationStatusRawValues() {
        let expected: [(CLAuthorizationStatus, Int32)] = [
            (.notDetermined, 0), (.restricted, 1), (.denied, 2), (.authorizedAlways, 3), (.authorizedWhenInUse, 4),
        ]
        for (status, raw) in expected {
            #expect(status.rawValue == raw)
            #expect(CLAuthorizationStatus(rawValue: raw) == status)
        }
        #expect(CLAuthorizationStatus(rawValue: 5) == nil)
    }

    @available(*, deprecated, message: "exercises the deprecated alias")
    @Test func authorizedIsAuthorizedAlways() {
        #expect(CLAuthorizationStatus.authorized == .authorizedAlways)
    }

    @Test func otherEnumRawValues() {
        #expect(CLAccuracyAuthorization.fullAccuracy.rawValue == 0)
        #expect(CLAccuracyAuthorization.reducedAccuracy.rawValue == 1)
        #expect([CLActivityType.other, .automotiveNavigation, .fitness, .otherNavigation, .airborne].map(\.rawValue)
            == [1, 2, 3, 4, 5])
        #expect(CLActivityType(rawValue: 0) == nil)
        let orientations: [CLDeviceOrientation] = [
            .unknown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown,
        ]
        #expect(orientations.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6])
        #expect([CLProximity.unknown, .immediate, .near, .far].map(\.rawValue) == [0, 1, 2, 3])
        #expect([CLRegionState.unknown, .inside, .outside].map(\.rawValue) == [0, 1, 2])
        #expect(Set([CLProximity.near, .near, .far]).count == 2)
    }

    /// App code switches with `@unknown default`; it must compile (a warning would be acceptable).
    @Test func unknownDefaultCompiles() {
        func name(_ status: CLAuthorizationStatus) -> String {
            switch status {
            case .notDetermined: "notDetermined"
            case .restricted: "restricted"
            case .denied: "denied"
            case .authorizedAlways: "always"
            case .authorizedWhenInUse: "whenInUse"
            @unknown default: "unknown"
            }
        }
        #expect(name(.authorizedWhenInUse) == "whenInUse")
    }
}

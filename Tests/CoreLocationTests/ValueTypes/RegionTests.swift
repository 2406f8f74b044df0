import CoreLocation
import Foundation
import CoreLocationGeodesy
import Testing

@Suite("CLRegion, CLCircularRegion, beacons")
struct RegionTests {
    static let paris = CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522)

    /// The point `distance` metres due north of Paris, on the WGS84 ellipsoid.
    static func north(of center: CLLocationCoordinate2D, by distance: Double) -> CLLocationCoordinate2D {
        let p = Geodesic.wgs84.direct(
            latitude1: center.latitude, longitude1: center.longitude, azimuth1: 0, distance: distance
        )
        return CLLocationCoordinate2D(latitude: p.latitude, longitude: p.longitude)
    }

    @Test func containsAtTheBoundary() {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "home")
        #expect(region.contains(Self.paris))
        #expect(region.contains(Self.north(of: Self.paris, by: 99.9)))
        #expect(!region.contains(Self.north(of: Self.paris, by: 100.1)))
        #expect(!region.contains(Self.north(of: Self.paris, by: 5_000)))
    }

    @Test(arguments: [
        (Double.nan, 2.0), (48.0, Double.nan), (91.0, 2.0), (-90.5, 0.0), (0.0, 180.5), (-180.0, -180.0),
    ])
    func invalidCoordinatesAreOutside(latitude: Double, longitude: Double) {
        let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        #expect(!CLLocationCoordinate2DIsValid(coordinate))
        let region = CLCircularRegion(center: Self.paris, radius: 20_000_000, identifier: "world")
        #expect(!region.contains(coordinate))
        let invalidCenter = CLCircularRegion(center: coordinate, radius: 100, identifier: "bad")
        #expect(!invalidCenter.contains(Self.paris))
    }

    @Test func nanOrNegativeRadiusContainsNothing() {
        #expect(!CLCircularRegion(center: Self.paris, radius: .nan, identifier: "a").contains(Self.paris))
        #expect(!CLCircularRegion(center: Self.paris, radius: -1, identifier: "a").contains(Self.paris))
    }

    @Test func defaultsAndFlags() {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "home")
        #expect(region.notifyOnEntry && region.notifyOnExit)
        #expect(region.center.latitude == 48.8566 && region.radius == 100 && region.identifier == "home")
        region.notifyOnEntry = false
        #expect(!region.notifyOnEntry && region.notifyOnExit)
        #expect(
            region.description
                == "CLCircularRegion (identifier:'home', center:<+48.85660000,+2.35220000>, radius:100.00m)"
        )
    }

    @Test func equalityIsByIdentifier() {
        let a = CLCircularRegion(center: Self.paris, radius: 100, identifier: "home")
        let elsewhere = CLLocationCoordinate2D(latitude: 1, longitude: 1)
        let b = CLCircularRegion(center: elsewhere, radius: 5, identifier: "home")
        let c = CLCircularRegion(center: Self.paris, radius: 100, identifier: "work")
        #expect(a == b && a.hash == b.hash)
        #expect(a != c)
        #expect(Set<CLRegion>([a, b, c]).count == 2)
        let beacon = CLBeaconRegion(uuid: UUID(), identifier: "home")
        #expect(beacon.isEqual(a))
    }

    @Test func copyIsIndependent() throws {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "home")
        region.notifyOnExit = false
        let copy = try #require(region.copy() as? CLCircularRegion)
        #expect(copy !== region)
        #expect(copy.radius == 100 && !copy.notifyOnExit && copy.notifyOnEntry)
        copy.notifyOnEntry = false
        #expect(region.notifyOnEntry)
    }

    @Test func circularRegionArchives() throws {
        let region = CLCircularRegion(center: Self.paris, radius: 250.5, identifier: "café")
        region.notifyOnEntry = false
        let data = try NSKeyedArchiver.archivedData(withRootObject: region, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLCircularRegion.self, from: data))
        #expect(decoded.identifier == "café")
        #expect(decoded.center.latitude == 48.8566 && decoded.center.longitude == 2.3522)
        #expect(decoded.radius == 250.5)
        #expect(!decoded.notifyOnEntry && decoded.notifyOnExit)
    }

    @Test func constraintEqualityAndInits() {
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        let any = CLBeaconIdentityConstraint(uuid: uuid)
        #expect(any.major == nil && any.minor == nil)
        let major = CLBeaconIdentityConstraint(uuid: uuid, major: 7)
        #expect(major.major == 7 && major.minor == nil)
        let both = CLBeaconIdentityConstraint(uuid: uuid, major: 7, minor: 9)
        #expect(both == CLBeaconIdentityConstraint(uuid: uuid, major: 7, minor: 9))
        #expect(both.hash == CLBeaconIdentityConstraint(uuid: uuid, major: 7, minor: 9).hash)
        #expect(both != major && major != any)
        #expect(Set([any, major, both, CLBeaconIdentityConstraint(uuid: uuid)]).count == 3)
    }

    @Test func constraintArchives() throws {
        let uuid = UUID()
        let constraints = [
            CLBeaconIdentityConstraint(uuid: uuid), CLBeaconIdentityConstraint(uuid: uuid, major: 0, minor: 65535),
        ]
        for original in constraints {
            let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: CLBeaconIdentityConstraint.self, from: data)
            #expect(decoded == original)
        }
    }

    @available(*, deprecated, message: "exercises the deprecated proximityUUID initializers")
    @Test func beaconRegionInitializers() {
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        let regions = [
            CLBeaconRegion(uuid: uuid, identifier: "a"),
            CLBeaconRegion(uuid: uuid, major: 1, identifier: "b"),
            CLBeaconRegion(uuid: uuid, major: 1, minor: 2, identifier: "c"),
            CLBeaconRegion(UUID: uuid, identifier: "d"),
            CLBeaconRegion(UUID: uuid, major: 1, identifier: "e"),
            CLBeaconRegion(UUID: uuid, major: 1, minor: 2, identifier: "f"),
            CLBeaconRegion(proximityUUID: uuid, identifier: "g"),
            CLBeaconRegion(proximityUUID: uuid, major: 1, identifier: "h"),
            CLBeaconRegion(proximityUUID: uuid, major: 1, minor: 2, identifier: "i"),
            CLBeaconRegion(
                beaconIdentityConstraint: CLBeaconIdentityConstraint(uuid: uuid, major: 1, minor: 2), identifier: "j"
            ),
        ]
        #expect(regions.map(\.identifier) == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])
        #expect(regions.allSatisfy { $0.uuid == uuid && $0.proximityUUID == uuid })
        #expect(regions.map { $0.major?.intValue } == [nil, 1, 1, nil, 1, 1, nil, 1, 1, 1])
        #expect(regions.map { $0.minor?.intValue } == [nil, nil, 2, nil, nil, 2, nil, nil, 2, 2])
        #expect(regions[2].beaconIdentityConstraint == CLBeaconIdentityConstraint(uuid: uuid, major: 1, minor: 2))
        #expect(!regions[0].notifyEntryStateOnDisplay)
        regions[0].notifyEntryStateOnDisplay = true
        #expect(regions[0].notifyEntryStateOnDisplay)
    }

    @Test func peripheralDataHasAppleBeaconLayout() throws {
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        let region = CLBeaconRegion(uuid: uuid, major: 0x0102, minor: 0xA0B0, identifier: "b")
        let dictionary = region.peripheralData(withMeasuredPower: NSNumber(value: -65))
        let data = try #require(dictionary.object(forKey: NSString(string: "kCBAdvDataAppleBeaconKey")) as? NSData)
        let bytes = [UInt8](Data(referencing: data))
        #expect(bytes.count == 21)
        #expect(bytes[0..<4] == [0xE2, 0xC5, 0x6D, 0xB5])
        #expect(bytes[16..<20] == [0x01, 0x02, 0xA0, 0xB0])
        #expect(Int8(bitPattern: bytes[20]) == -65)
        let defaultPower = region.peripheralData(withMeasuredPower: nil)
        let defaultBytes = try #require(
            defaultPower.object(forKey: NSString(string: "kCBAdvDataAppleBeaconKey")) as? NSData
        )
        #expect(Int8(bitPattern: [UInt8](Data(referencing: defaultBytes))[20]) == -59)
    }

    @Test func beaconRegionArchives() throws {
        let region = CLBeaconRegion(uuid: UUID(), major: 3, identifier: "shop")
        region.notifyEntryStateOnDisplay = true
        let data = try NSKeyedArchiver.archivedData(withRootObject: region, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLBeaconRegion.self, from: data))
        #expect(decoded.identifier == "shop" && decoded.beaconIdentityConstraint == region.beaconIdentityConstraint)
        #expect(decoded.notifyEntryStateOnDisplay && decoded.notifyOnEntry)
    }
}

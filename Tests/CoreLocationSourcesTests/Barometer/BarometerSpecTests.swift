import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocationSources

@Suite struct BarometerSpecTests {
    @Test func parsesURLs() throws {
        #expect(try SourceSpec.parse("barometer:") == .barometer(BarometerSpec()))
        #expect(try SourceSpec.parse("iio-pressure:iio:device2") == .barometer(BarometerSpec(device: "iio:device2")))
        let venue = try SourceSpec.parse("barometer:?ground=432.5&floor-height=3.6&center=47.37,8.54&radius=60&interval=1")
        #expect(
            venue
                == .barometer(
                    BarometerSpec(
                        interval: 1,
                        venue: FloorVenue(
                            groundFloorAltitude: 432.5, floorHeight: 3.6, latitude: 47.37, longitude: 8.54, radius: 60))))
        #expect(try SourceSpec.parse(venue.description) == venue)
    }

    @Test(arguments: [
        "barometer:?ground=1", "barometer:?floor-height=3", "barometer:?ground=1&floor-height=30",
        "barometer:?interval=0", "barometer:?center=1,2", "barometer:?colour=blue", "barometer:?ground=x&floor-height=3",
    ])
    func refusesBadURLs(text: String) {
        #expect(throws: SourceConfigurationError.self) { try SourceSpec.parse(text) }
    }

    @Test func factoryFindsTheSensorAndCarriesTheVenue() throws {
        let fake = try FakeSysfs()
        try IIOPressureDeviceTests.Layout.dps310.write(fake, 3, hectopascals: 990)
        let spec = BarometerSpec(device: fake.devicePath(3), venue: FloorVenue(groundFloorAltitude: 10, floorHeight: 4))
        let sensor = try #require(spec.sensor(sysfsRoot: "/nonexistent"))
        #expect(sensor.name == "dps310")
        #expect(BarometerSpec(device: "iio:device3").sensor(sysfsRoot: fake.root)?.name == "dps310")
        #expect(BarometerSpec(device: "iio:device4").sensor(sysfsRoot: fake.root) == nil)
        let source = IIOBarometerSource(sensor: sensor, venue: spec.venue, scheduler: ManualScheduler())
        #expect(IIOBarometerSource.venue(in: [source])?.floorHeight == 4)
    }
}

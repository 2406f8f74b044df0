import CoreLocationEngine
import Foundation
import Testing

/// The engine with a barometer: powered whenever a client wants locations, never chosen as a position
/// source, and its pressure fused into the delivered fixes (decisions 0032, 0033).
@Suite struct BarometerEngineTests {
    static let barometer = SourceDescriptor(
        id: SourceID("barometer:/sys/bus/iio/devices/iio:device0"), kind: SourceDescriptor.barometerKind,
        expectedAccuracy: 1e9, powerCost: 0.01, isSimulated: false)

    @Test func barometerIsPoweredOnlyWhileAClientWantsLocations() {
        var d = driver([gnss, coarse, Self.barometer])
        #expect(d.poweredSources.isEmpty)
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 3000))))
        #expect(d.poweredSources == [coarse.id, Self.barometer.id])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: -2))))
        #expect(d.poweredSources == [gnss.id, Self.barometer.id])
        d.send(.client(app, .stopUpdates))
        #expect(d.poweredSources.isEmpty)
    }

    @Test func barometerAloneIsNoPositionSource() {
        var d = driver([Self.barometer])
        d.send(.client(app, .startUpdates(UpdateRequest())))
        #expect(d.poweredSources == [Self.barometer.id])
        d.send(.source(Self.barometer.id, .pressure(PressureSample(hectopascals: 1000, timestamp: Date(), device: "x"))))
        d.advance(by: 1)
        #expect(d.deliveries(to: app).isEmpty)
        #expect(d.engine.latestPressure?.hectopascals == 1000)
    }

    @Test func deliveredFixesCarryTheFusedAltitude() throws {
        var d = driver([gnss, Self.barometer])
        d.send(.client(app, .startUpdates(UpdateRequest())))
        let pressure = PressureSample.standardAtmospherePressure(height: 500)
        for second in 0..<120 {
            d.send(.source(Self.barometer.id, .pressure(PressureSample(hectopascals: pressure, timestamp: Date(), device: "x"))))
            // GNSS alternating ±6 m around 500 m.
            let noisy = 500 + (second % 2 == 0 ? 6.0 : -6.0)
            d.send(.source(gnss.id, .fix(Fix(latitude: 47, longitude: 8, altitude: noisy, ellipsoidalAltitude: noisy + 48,
                                              horizontalAccuracy: 5, verticalAccuracy: 6, timestamp: Date()))))
            d.advance(by: 1)
        }
        let last = try #require(d.deliveries(to: app).flatMap(\.fixes).last)
        #expect(abs(last.altitude - 500) < 1.5)
        #expect(last.verticalAccuracy < 6)
        #expect(abs(last.ellipsoidalAltitude - last.altitude - 48) < 1e-9)
        #expect(last.floor == nil)
    }
}

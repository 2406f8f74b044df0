import CoreLocationEngine
import Foundation
import Testing

/// Which source's fixes are delivered when several report (docs/decisions/0025): accuracy and age, no flapping.
@Suite struct SourceArbitrationTests {
    let wifi = SourceDescriptor(id: SourceID("wifi"), kind: "wifi", expectedAccuracy: 100, powerCost: 5, isSimulated: false)
    let ip = SourceDescriptor(id: SourceID("ip"), kind: "ip", expectedAccuracy: 15_000, powerCost: 1, isSimulated: false)
    let receiver = SourceDescriptor(id: SourceID("gnss"), kind: "gpsd", expectedAccuracy: 5, powerCost: 100, isSimulated: false)

    /// Both powered: a kilometre client on a machine where Wi-Fi went silent once, then came back.
    private func bothPowered() -> EngineDriver {
        let cheapWiFi = SourceDescriptor(id: wifi.id, kind: "wifi", expectedAccuracy: 100, powerCost: 1, isSimulated: false)
        let dearWiFi = SourceDescriptor(id: SourceID("wifi2"), kind: "wifi", expectedAccuracy: 100, powerCost: 2, isSimulated: false)
        var d = driver([cheapWiFi, dearWiFi])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 1000))))
        d.send(.source(cheapWiFi.id, .unavailable(reason: "scan")))
        return d
    }

    @Test func aWorseSourceDoesNotInterruptABetterOne() {
        var d = driver([wifi, ip])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 1000))))
        #expect(d.poweredSources == [wifi.id])
        d.advance(to: 1)
        d.send(.source(wifi.id, .fix(fix(48.8580, 2.2945, accuracy: 100, at: 1))))
        d.advance(to: 2)
        d.send(.source(ip.id, .fix(fix(48.85, 2.35, accuracy: 15_000, at: 2))))
        d.advance(to: 31)
        d.send(.source(wifi.id, .fix(fix(48.8581, 2.2946, accuracy: 90, at: 31))))
        d.advance(to: 40)
        d.send(.source(ip.id, .fix(fix(48.85, 2.35, accuracy: 15_000, at: 40))))
        #expect(d.deliveries(to: app).flatMap(\.fixes).map(\.horizontalAccuracy) == [100, 90])
    }

    @Test func aBetterSourceTakesOverAtOnce() {
        var d = driver([wifi, receiver])
        // An app asking for the best: the receiver is powered; a last Wi-Fi fix is still in flight.
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: -1))))
        #expect(d.poweredSources == [receiver.id])
        d.send(.source(wifi.id, .fix(fix(48.8580, 2.2945, accuracy: 100))))
        d.advance(to: 1)
        d.send(.source(receiver.id, .fix(fix(48.85801, 2.29452, accuracy: 4, at: 1))))
        // Wi-Fi again, worse than the receiver's 4 m + 1 s: not delivered.
        d.advance(to: 2)
        d.send(.source(wifi.id, .fix(fix(48.8580, 2.2945, accuracy: 100, at: 2))))
        #expect(d.deliveries(to: app).flatMap(\.fixes).map(\.horizontalAccuracy) == [100, 4])
    }

    @Test func equalSourcesDoNotFlap() {
        var d = bothPowered()
        #expect(d.poweredSources == [wifi.id, SourceID("wifi2")])
        for second in 1...10 {
            d.advance(to: Double(second))
            // The fallback and the cheap one in turn, equally accurate, a few metres apart.
            let (from, latitude) = second % 2 == 1 ? (SourceID("wifi2"), 48.859) : (wifi.id, 48.858)
            d.send(.source(from, .fix(fix(latitude, 2.2945, accuracy: 100, at: Double(second)))))
        }
        let latitudes = d.deliveries(to: app).flatMap(\.fixes).map(\.latitude)
        // The fallback's two fixes, then the cheap source once the engine has powered the fallback down: one
        // switch, never back.
        #expect(latitudes == [48.859, 48.859, 48.858, 48.858, 48.858, 48.858])
    }

    @Test func theCurrentSourceLosesTheStreamWhenItGoesQuiet() {
        var d = driver([wifi, ip])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 1000))))
        d.send(.source(wifi.id, .fix(fix(48.8580, 2.2945, accuracy: 100))))
        d.advance(to: 5)
        d.send(.source(wifi.id, .unavailable(reason: "Wi-Fi: service failed (500)")))
        d.send(.source(ip.id, .fix(fix(48.85, 2.35, accuracy: 15_000, at: 5))))
        #expect(d.deliveries(to: app).flatMap(\.fixes).map(\.horizontalAccuracy) == [100, 15_000])
    }

    @Test func anAgedFixLosesToAFreshWorseOne() {
        var d = driver([wifi, ip])
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: 1000))))
        d.send(.source(wifi.id, .fix(fix(48.8580, 2.2945, accuracy: 100))))
        // 100 m + 1 m/s × 15 000 s > 15 km: a four-hour-old Wi-Fi fix is worse than a fresh IP one.
        d.advance(to: 15_000)
        d.send(.source(ip.id, .fix(fix(48.85, 2.35, accuracy: 15_000, at: 15_000))))
        #expect(d.deliveries(to: app).flatMap(\.fixes).map(\.horizontalAccuracy) == [100, 15_000])
    }
}

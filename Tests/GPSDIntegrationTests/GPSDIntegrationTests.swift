import CoreLocationGPSDTestSupport
import Foundation
import CoreLocationSources
import Synchronization
import Testing

@testable import CoreLocation

/// gpsd itself, end to end: NMEA in over TCP → gpsd → our JSON client → engine → CLLocationManager
/// and CLLocationUpdate. Expected values come from the NMEA sentences (`Walk.expected`), not from
/// our code. Skipped only when the gpsd binary is absent (CI installs Debian's gpsd).
@Suite(
    .serialized, .enabled(if: gpsdPath != nil, "needs Debian package gpsd")
)
struct GPSDIntegrationTests {
    static let epochInterval = 0.1

    private func check(_ location: CLLocation, against expected: Walk.Expected, _ label: String) {
        #expect(abs(location.coordinate.latitude - expected.latitude) < 1e-8, "\(label)")
        #expect(abs(location.coordinate.longitude - expected.longitude) < 1e-8, "\(label)")
        #expect(abs(location.altitude - expected.altitudeMSL) < 1e-3, "\(label)")
        #expect(abs(location.ellipsoidalAltitude - expected.ellipsoidalAltitude) < 1e-3, "\(label)")
        #expect(abs(location.speed - expected.speed) < 1e-3, "\(label)")
        #expect(abs(location.course - expected.course) < 1e-3, "\(label)")
        // gpsd 3.22's error model: eph = HDOP × 19 m, epv = VDOP × 23 m (95 %), then our 68 % scaling.
        #expect(
            abs(location.horizontalAccuracy - expected.hdop * 19 * GPSDTPV.horizontalConfidenceScale) < 1e-3, "\(label)"
        )
        #expect(abs(location.verticalAccuracy - expected.vdop * 23 * GPSDTPV.linearConfidenceScale) < 1e-3, "\(label)")
        #expect(location.timestamp == expected.timestamp, "\(label)")
        #expect(location.sourceInformation?.isProducedByAccessory == true, "\(label)")
        #expect(location.sourceInformation?.isSimulatedBySoftware == false, "\(label)")
    }

    /// The last location of each timestamp, in order.
    static func lastPerEpoch(_ locations: [CLLocation]) -> [CLLocation] {
        var result: [CLLocation] = []
        for location in locations {
            if result.last?.timestamp == location.timestamp { result.removeLast() }
            result.append(location)
        }
        return result
    }

    @Test func managerReceivesEveryEpochAsTheSentencesSayIt() async throws {
        // The engine's "no fix for a while" timer runs on the wall clock; in a full parallel run the delivery of
        // a fix can wait over 15 s for a thread (CPU-bound tests hold the shared queues), which is not what this
        // test is about (updatesResumeAfterGPSDRestarts tests the timer).
        let harness = try GPSDHarness(locationUnknownTimeout: 300)
        defer { harness.shutDown() }
        try await harness.startGPSD()
        let delegate = GPSDRecordingDelegate(clock: harness.scheduler)
        let manager = harness.manager(delegate)
        manager.desiredAccuracy = kCLLocationAccuracyBest
        manager.startUpdatingLocation()
        // Connected and watching: gpsd answers WATCH with DEVICES, so an epoch fed after this is reported to us.
        #expect(
            await harness.pumpYielding(until: { harness.source.status.isConnected && !harness.source.status.devices.isEmpty }, timeout: 30),
            "connected to gpsd and watching"
        )

        let epochs = try Walk.fixtureEpochs()
        #expect(epochs.count == 10)
        harness.feed.startPumping(interval: Self.epochInterval) { $0 < epochs.count ? epochs[$0] : nil }
        let last = Walk.expected(epochs[epochs.count - 1])?.timestamp
        #expect(await harness.pumpYielding(until: { delegate.locations.last?.timestamp == last }, timeout: 30))
        manager.stopUpdatingLocation()

        let locations = Self.lastPerEpoch(delegate.locations)
        #expect(locations.count == epochs.count, "one location per epoch")
        // gpsd 3.22 reports the first epoch from RMC alone before it learns the cycle; the complete
        // reports that follow (after GGA, after GSA) refine it. Repeats of an epoch are dropped.
        #expect(delegate.locations.count <= epochs.count + 2)
        for (index, (location, epoch)) in zip(locations, epochs).enumerated() {
            guard let expected = Walk.expected(epoch) else {
                Issue.record("epoch \(index) of walk.nmea does not parse")
                continue
            }
            check(location, against: expected, "epoch \(index)")
        }
        #expect(delegate.errors.isEmpty)
        let status = harness.source.status
        #expect(status.satellitesInView == 10 && status.satellitesUsed == 8)
        #expect(status.isPowered && status.release != nil && status.invalidLines == 0)
    }

    @Test func liveUpdatesDeliverTheSameLocations() async throws {
        let harness = try GPSDHarness()
        defer { harness.shutDown() }
        try await harness.startGPSD()
        let epochs = try Walk.fixtureEpochs()
        let received = LocationList()
        let last = Walk.expected(epochs[epochs.count - 1])?.timestamp
        let runtime = harness.runtime
        let task = Task {
            for try await update in CLLocationUpdate.liveUpdates(runtime: runtime) {
                if let location = update.location {
                    _ = received.append(location)
                    if location.timestamp == last { break }
                }
            }
        }
        defer { task.cancel() }
        // Connected and watching: gpsd answers WATCH with DEVICES, so an epoch fed after this is reported to us.
        // Async waits: the loop above runs in a Task that needs a cooperative thread while this test waits.
        // Bounds of 90 s: in a full parallel run on 2 cores the source once took more than 30 s to connect.
        #expect(
            await harness.pumpYielding(
                until: { harness.source.status.isConnected && !harness.source.status.devices.isEmpty }, timeout: 90),
            "connected to gpsd and watching"
        )
        harness.feed.startPumping(interval: Self.epochInterval) { $0 < epochs.count ? epochs[$0] : nil }
        #expect(await harness.pumpYielding(until: { received.all.last?.timestamp == last }, timeout: 90))
        let locations = Self.lastPerEpoch(received.all)
        #expect(locations.count == epochs.count)
        for (index, (location, epoch)) in zip(locations, epochs).enumerated() {
            guard let expected = Walk.expected(epoch) else { continue }
            check(location, against: expected, "live update \(index)")
        }
    }

    /// gpsd stops mid-stream: kCLErrorLocationUnknown while it is away; a new gpsd on the same port
    /// brings updates back within 2 s of its start.
    @Test func updatesResumeAfterGPSDRestarts() async throws {
        let harness = try GPSDHarness(locationUnknownTimeout: 1)
        defer { harness.shutDown() }
        try await harness.startGPSD()
        let delegate = GPSDRecordingDelegate(clock: harness.scheduler)
        let manager = harness.manager(delegate)
        manager.startUpdatingLocation()
        // Connected and watching: gpsd answers WATCH with DEVICES, so an epoch fed after this is reported to us.
        #expect(
            await harness.pumpYielding(until: { harness.source.status.isConnected && !harness.source.status.devices.isEmpty }, timeout: 30),
            "connected to gpsd and watching"
        )
        harness.feed.startPumping(interval: Self.epochInterval) { Walk.generatedEpoch($0) }
        #expect(await harness.pumpYielding(until: { delegate.locations.count >= 5 }, timeout: 10), "updates before the stop")

        harness.stopGPSD()
        #expect(await harness.pumpYielding(until: { !harness.source.status.isConnected }, timeout: 2), "the source notices")
        let countWhileAway = delegate.locations.count
        #expect(
            await harness.pumpYielding(until: { delegate.errors.contains(.locationUnknown) }, timeout: 5),
            "kCLErrorLocationUnknown while away")
        #expect(delegate.locations.count == countWhileAway, "nothing arrives while gpsd is away")
        let lastBefore = delegate.locations.last?.timestamp ?? .distantPast

        let restart = harness.scheduler.now
        try await harness.startGPSD()
        let resumed = await harness.pumpYielding(
            until: { delegate.locations.contains { $0.timestamp > lastBefore } },
            timeout: 5
        )
        #expect(resumed, "updates resume after gpsd returns")
        if !resumed { print("DEBUG", harness.gpsd?.isRunning as Any, harness.gpsd?.log ?? "") }
        let firstNew = delegate.arrivals.first { $0.0.timestamp > lastBefore && $0.1 > restart }
        let delay = (firstNew?.1 ?? .infinity) - restart
        #expect(delay <= 2, "first update \(delay) s after gpsd restarted")
        manager.stopUpdatingLocation()
    }
}

/// Locations collected from an async sequence on another task.
final class LocationList: Sendable {
    private let list = Mutex<[CLLocation]>([])
    func append(_ location: CLLocation) -> Int {
        list.withLock {
            $0.append(location)
            return $0.count
        }
    }
    var count: Int { list.withLock { $0.count } }
    var all: [CLLocation] { list.withLock { $0 } }
}

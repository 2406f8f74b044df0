import CoreLocationGPSDTestSupport
import Foundation
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

@testable import CoreLocation
import CoreLocationRuntime

/// A real gpsd reading a loopback NMEA feed, and a `LocationRuntime` whose only source is a
/// `GPSDLocationSource` pointed at it, on real time (`DispatchScheduler`). Delegate calls wait on a
/// manual callback target that `pump(until:)` drains while it polls.
final class GPSDHarness {
    let feed: NMEAFeed
    let gpsdPort: UInt16
    private(set) var gpsd: GPSDProcess?
    let scheduler = DispatchScheduler()
    let source: GPSDLocationSource
    let runtime: EngineHost
    let target = CallbackTarget.manual()
    static let appID = "org.example.gpsd-tests"

    init(locationUnknownTimeout: Double = 15) throws {
        feed = try NMEAFeed()
        gpsdPort = try freeLoopbackPort()
        let logger = Logger(label: "gpsd-tests")
        source = GPSDLocationSource(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: gpsdPort), scheduler: scheduler, logger: logger
        )
        let store = try AuthorizationStore.inMemory()
        try store.save(AuthorizationDecision(appID: Self.appID, level: .always, accuracy: .full, decidedAt: Date()))
        let identity = AppIdentity(
            id: Self.appID, displayName: "GPSD tests",
            info: [
                "CFBundleIdentifier": Self.appID,
                "NSLocationWhenInUseUsageDescription": "Tests gpsd.",
                "NSLocationAlwaysAndWhenInUseUsageDescription": "Tests gpsd.",
            ]
        )
        let authorization = AuthorizationService(
            identity: identity, store: store, prompter: nil, environmentPolicy: nil, sourcesAreSimulated: false,
            logger: logger
        )
        var configuration = LocationEngine.Configuration()
        configuration.locationUnknownTimeout = locationUnknownTimeout
        runtime = EngineHost(
            sources: [source], scheduler: scheduler, authorization: authorization, configuration: configuration,
            logger: logger
        )
    }

    /// Starts gpsd on `gpsdPort` and waits until it listens and has connected to the feed.
    func startGPSD() async throws {
        let accepted = feed.acceptedCount
        let process = try GPSDProcess(port: gpsdPort, feedPort: feed.port)
        gpsd = process
        try process.waitUntilListening()
        guard await pumpYielding(until: { self.feed.acceptedCount > accepted }, timeout: 5) else {
            throw GPSDProcess.Failure(description: "gpsd did not connect to the NMEA feed")
        }
    }

    func stopGPSD() {
        gpsd?.terminate()
        gpsd = nil
    }

    /// Ends everything the test started: gpsd (terminate + wait), the feed, the source.
    func shutDown() {
        source.stop()
        stopGPSD()
        feed.close()
    }

    func manager(_ delegate: GPSDRecordingDelegate) -> CLLocationManager {
        let manager = CLLocationManager(runtime: runtime, target: target)
        manager.delegate = delegate
        target.runPending()
        return manager
    }

    /// Polls `condition` (delivering delegate calls) until it holds or `timeout` seconds pass. It sleeps with
    /// `Task.sleep`, so it gives its cooperative thread back while it waits: a blocking poll held one of the
    /// pool's threads (two on a 2-core machine); in a full parallel run other suites' blocking waits held the
    /// other, and a `Task` the test itself had started (the `liveUpdates` loop that starts the source) never
    /// ran within 30 s.
    func pumpYielding(until condition: () -> Bool, timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            target.runPending()
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        } while Date() < deadline
        target.runPending()
        return condition()
    }
}

/// Records locations (with the monotonic time they arrived) and errors.
final class GPSDRecordingDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    private let recorded = Mutex<(locations: [(CLLocation, Double)], errors: [CLError.Code])>(([], []))
    private let clock: DispatchScheduler

    init(clock: DispatchScheduler) { self.clock = clock }

    var locations: [CLLocation] { recorded.withLock { $0.locations.map(\.0) } }
    var arrivals: [(CLLocation, Double)] { recorded.withLock { $0.locations } }
    var errors: [CLError.Code] { recorded.withLock { $0.errors } }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let now = clock.now
        recorded.withLock { $0.locations += locations.map { ($0, now) } }
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        recorded.withLock { $0.errors.append((error as? CLError)?.code ?? .locationUnknown) }
    }
}

import Foundation
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

@testable import CoreLocation
import CoreLocationRuntime

/// A runtime over a real on-disk database file (so a "restart" is a new runtime over the same
/// file), a manual clock and a simulated source; delegate calls run when the test flushes.
struct MonitoringHarness {
    let scheduler = ManualScheduler(wallOrigin: Date(timeIntervalSince1970: 1_750_000_000))
    let runtime: EngineHost
    let target = CallbackTarget.manual()
    let database: ScratchDirectory
    var databasePath: String { database.databasePath }

    static let identity = AppIdentity(
        id: "org.example.monitoring", displayName: "Monitoring",
        info: ["CFBundleIdentifier": "org.example.monitoring", "NSLocationWhenInUseUsageDescription": "Geofences."],
        temporaryUsageDescriptions: [:]
    )

    init(
        database: ScratchDirectory? = nil,
        scenario: SimulationScenario = .fixed(latitude: 48.8584, longitude: 2.2945),
        level: AuthorizationLevel = .whenInUse, accuracy: AccuracyLevel = .full,
        configuration: LocationEngine.Configuration = .init(),
        services: LocationServicesSwitch = LocationServicesSwitch(isEnabled: true), persists: Bool = true
    ) throws {
        let database = try database ?? ScratchDirectory("monitoring-tests")
        self.database = database
        let opened = try LocationDatabase(path: database.databasePath)
        let store = AuthorizationStore(database: opened)
        try store.save(
            AuthorizationDecision(appID: Self.identity.id, level: level, accuracy: accuracy, decidedAt: Date()))
        let source = try SimulatedLocationSource(scenario: scenario, scheduler: scheduler)
        let authorization = AuthorizationService(
            identity: Self.identity, store: store, prompter: nil, environmentPolicy: nil, sourcesAreSimulated: true,
            services: services, logger: Logger(label: "tests")
        )
        runtime = EngineHost(
            sources: [source], scheduler: scheduler, authorization: authorization, configuration: configuration,
            regionStore: persists ? RegionStore(database: opened) : nil
        )
    }

    func manager(_ delegate: RegionDelegate) -> CLLocationManager {
        let manager = CLLocationManager(runtime: runtime, target: target)
        manager.delegate = delegate
        target.runPending()
        return manager
    }

    func advance(by seconds: Double) {
        scheduler.advance(by: seconds)
        target.runPending()
    }
}

extension ScratchDirectory {
    /// The harness's database in the directory, beside what SQLite puts there (its WAL, a corrupt copy
    /// moved aside): a test that "restarts" keeps the file by keeping the directory.
    var databasePath: String { path("corelocation.sqlite") }
}

/// Records the region calls of `CLLocationManagerDelegate` as short strings.
final class RegionDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    private let recorded = Mutex<[String]>([])
    var calls: [String] { recorded.withLock { $0 } }
    private func record(_ call: String) { recorded.withLock { $0.append(call) } }

    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
        record("start:\(region.identifier)")
    }
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {
        record("fail:\(region?.identifier ?? "nil"):\((error as? CLError)?.code.rawValue ?? -1)")
    }
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        record("state:\(region.identifier):\(state == .inside ? "inside" : state == .outside ? "outside" : "unknown")")
    }
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        record("enter:\(region.identifier)")
    }
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        record("exit:\(region.identifier)")
    }
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        record("locations:\(locations.count)")
    }
    func locationManager(_ manager: CLLocationManager, didFinishDeferredUpdatesWithError error: (any Error)?) {
        record("deferred:\((error as? CLError).map { String($0.code.rawValue) } ?? "nil")")
    }
}

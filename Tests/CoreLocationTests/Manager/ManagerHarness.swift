import Foundation
import InMemoryLogging
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization
@testable import CoreLocation
import CoreLocationRuntime

/// Everything a manager test needs: a manual clock, a simulated source, an in-memory decision
/// store, a scripted prompt and a log that can be read back. Delegate calls are delivered at once
/// on the thread that advances time, so every test is deterministic.
struct ManagerHarness {
    let scheduler = ManualScheduler(wallOrigin: Date(timeIntervalSince1970: 1_750_000_000))
    let store: AuthorizationStore
    let prompter: ScriptedPrompter?
    let log = InMemoryLogHandler()
    let runtime: EngineHost
    let source: SimulatedLocationSource?
    let target = CallbackTarget.manual()

    static let fullInfo = [
        "CFBundleIdentifier": "org.example.tests",
        "NSLocationWhenInUseUsageDescription": "Shows where you are.",
        "NSLocationAlwaysAndWhenInUseUsageDescription": "Tracks your runs.",
    ]

    init(
        scenario: SimulationScenario? = .fixed(latitude: 48.8584, longitude: 2.2945),
        noise: NoiseModel? = nil,
        info: [String: String] = ManagerHarness.fullInfo,
        temporary: [String: String] = [:],
        backgroundModes: Set<String> = [],
        answers: [AuthorizationAnswer?]? = nil,
        policy: DefaultPolicy? = nil,
        simulatedSources: Bool? = nil,
        regionStore: RegionStore? = nil
    ) throws {
        store = try AuthorizationStore.inMemory()
        prompter = answers.map(ScriptedPrompter.init)
        if let scenario {
            source = try SimulatedLocationSource(scenario: scenario, noise: noise, scheduler: scheduler)
        } else {
            source = nil
        }
        let logHandler = log
        let logger = Logger(label: "tests") { _ in logHandler }
        let identity = AppIdentity(
            id: info["CFBundleIdentifier"] ?? "/usr/bin/tests", displayName: "Tests", info: info,
            temporaryUsageDescriptions: temporary, backgroundModes: backgroundModes
        )
        let authorization = AuthorizationService(
            identity: identity, store: store, prompter: prompter, environmentPolicy: policy,
            sourcesAreSimulated: simulatedSources ?? (source != nil), logger: logger
        )
        runtime = EngineHost(
            sources: source.map { [$0] } ?? [], scheduler: scheduler, authorization: authorization,
            regionStore: regionStore, logger: logger
        )
    }

    func manager(_ delegate: RecordingDelegate) -> CLLocationManager {
        let manager = CLLocationManager(runtime: runtime, target: target)
        manager.delegate = delegate
        flush()
        return manager
    }

    func authorize(_ level: AuthorizationLevel, accuracy: AccuracyLevel = .full) throws {
        try store.save(AuthorizationDecision(appID: "org.example.tests", level: level, accuracy: accuracy, decidedAt: Date()))
        runtime.authorization.reloadStoredDecision()
    }

    /// Moves time on and lets the managers' "run loop" deliver what is due.
    func advance(by seconds: Double) {
        scheduler.advance(by: seconds)
        flush()
    }

    /// Delivers the delegate calls waiting on the managers' "run loop".
    func flush() { target.runPending() }

    var logMessages: [String] { log.entries.map { "\($0.message)" } }
}

/// A delegate that records every call, in order. Ships with the tests as Apple's apps would write it.
final class RecordingDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    enum Call: Equatable {
        case authorization(CLAuthorizationStatus)
        case legacyAuthorization(CLAuthorizationStatus)
        case locations([CLLocationCoordinate2D])
        case error(CLError.Code)
        case monitoringFailed(String?, CLError.Code)
        case rangingFailed(CLError.Code)
        case deferredFinished(CLError.Code?)
        case paused
        case resumed
        case visit(arrival: Date, departure: Date)

        static func == (a: Call, b: Call) -> Bool { "\(a)" == "\(b)" }
    }

    private let recorded = Mutex<[Call]>([])
    private let locationList = Mutex<[CLLocation]>([])

    var calls: [Call] { recorded.withLock { $0 } }
    var locations: [CLLocation] { locationList.withLock { $0 } }
    var errors: [CLError.Code] {
        calls.compactMap { if case let .error(code) = $0 { code } else { nil } }
    }
    var authorizations: [CLAuthorizationStatus] {
        calls.compactMap { if case let .authorization(status) = $0 { status } else { nil } }
    }

    private func record(_ call: Call) { recorded.withLock { $0.append(call) } }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        record(.authorization(manager.authorizationStatus))
    }

    func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus) {
        record(.legacyAuthorization(status))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        locationList.withLock { $0 += locations }
        record(.locations(locations.map(\.coordinate)))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        record(.error((error as? CLError)?.code ?? .locationUnknown))
    }

    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error) {
        record(.monitoringFailed(region?.identifier, (error as? CLError)?.code ?? .regionMonitoringFailure))
    }

    func locationManager(
        _ manager: CLLocationManager, didFailRangingFor beaconConstraint: CLBeaconIdentityConstraint, error: any Error
    ) {
        record(.rangingFailed((error as? CLError)?.code ?? .rangingFailure))
    }

    func locationManager(_ manager: CLLocationManager, didFinishDeferredUpdatesWithError error: (any Error)?) {
        record(.deferredFinished((error as? CLError)?.code))
    }

    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) { record(.paused) }

    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) { record(.resumed) }

    private let visitList = Mutex<[CLVisit]>([])
    var visits: [CLVisit] { visitList.withLock { $0 } }

    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        visitList.withLock { $0.append(visit) }
        record(.visit(arrival: visit.arrivalDate, departure: visit.departureDate))
    }
}

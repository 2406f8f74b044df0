import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// Where Core Location runs: the one interface the façade (and `locationctl`) speaks to, with two
/// implementations — `EngineHost`, the engine in this process, and `DaemonClient`, locationd's engine
/// through its socket (docs/decisions/0066). A feature is written once, above this interface: the façade
/// never asks which of the two it has.
///
/// Events reach a client through its sink, on whatever thread the runtime delivers on; the façade hops
/// to the app's thread. Events the system kept for the app while it was not running (locationd's pending
/// events) come through pending consumers, with a receipt; the engine in this process keeps none.
package protocol LocationRuntime: AnyObject, Sendable {
    // MARK: Policy and identity

    /// The app's authorization: decided here (in process) or by locationd, told to this service either way.
    var authorization: AuthorizationService { get }
    /// `locationServicesEnabled()`: the environment's switch, and locationd's when it is the engine.
    var servicesEnabled: Bool { get }
    var logger: Logger { get }
    /// The clock: monotonic time for the runtime's timers, and the wall clock stamped on what it makes.
    var scheduler: any Scheduler { get }
    /// Backpressure between replaying sources and the app's delivery threads.
    var flow: DeliveryFlow { get }
    /// The largest radius, metres, a monitored region may have.
    var maximumRegionDistance: Double { get }
    /// The latest fix this runtime saw (full accuracy), for `CLLocationManager.location` before the
    /// manager's first delivery and for true heading.
    var latestFix: Fix? { get }
    /// The compass: always in this process (locationd has no magnetometer of the app's).
    var heading: HeadingRuntime { get }
    /// The beacon scanner for ranging (always in this process) and for the app's regions in process.
    var beacons: BeaconRuntime { get }

    // MARK: Engine clients

    /// A client of the engine (a manager, a `liveUpdates` iteration, a monitor); `sink` hears its events.
    func addClient(label: String, sink: @escaping @Sendable (ClientEvent) -> Void) -> ClientID
    func send(_ command: ClientCommand, from client: ClientID)
    /// The app's monitored regions (`startMonitoring(for:)`'s, not a monitor's conditions), by identifier.
    var monitoredRegions: [MonitoredRegion] { get }

    // MARK: The app's beacon regions (decisions 0050, 0052)

    /// Watches the app's beacon regions kept from earlier runs again (once a run; a manager asks at its creation).
    func restoreBeaconRegions()
    /// Starts watching `region` for the app; why not, when it cannot.
    func startMonitoring(_ region: BeaconRegionSpec) -> BeaconRegionRefusal?
    /// Stops the app's beacon region `identifier`; false when it is not one (then it is a circular region's).
    /// `isBeaconRegion`: the caller's object is a beacon region.
    func stopMonitoringBeaconRegion(_ identifier: String, isBeaconRegion: Bool) -> Bool
    /// The state of the app's beacon region `identifier` now; nil when it is not one.
    func beaconRegionState(_ identifier: String, isBeaconRegion: Bool) -> BeaconRegionAnswer?
    var monitoredBeaconRegions: [BeaconRegionSpec] { get }

    // MARK: CLMonitor (decisions 0049, 0053)

    /// The monitor `name`'s conditions where they are watched; `sink` hears their changes.
    func openMonitor(
        name: String, beacons: BeaconRuntime?, sink: @escaping @Sendable (MonitorEvent) -> Void
    ) -> any MonitorSession

    // MARK: Events kept for the app (decisions 0026, 0039)

    /// Takes the events kept for the app on `channel`; nil where nothing is ever kept (the engine in process).
    func addPendingConsumer(channel: PendingChannel, _ consumer: @escaping PendingConsumer) -> UInt64?
    func removePendingConsumer(_ id: UInt64)

    // MARK: Sessions (decision 0048)

    /// A `CLBackgroundActivitySession` or `CLServiceSession` was made, or ended.
    func holdSession()
    func releaseSession()

    // MARK: For tools

    /// Hears every event of every source where the sources are (the engine in process; locationd's are its own).
    func observeSources(_ observer: @escaping @Sendable (SourceID, SourceEvent) -> Void)
    /// The engine's status where the engine is here; nil through locationd (`locationctl status` asks it).
    func engineStatus() -> EngineStatus?
    /// The engine's status after its sources ran `seconds` for a diagnostic client `label` that the user is not
    /// asked about (it reads the engine, not the user's location: positions are left out unless the app may have
    /// them); nil through locationd.
    func probeStatus(label: String, seconds: Double) async throws -> EngineStatus?
}

import Foundation
import CoreLocationEngine
import CoreLocationRuntime
import Synchronization

/// The object you use to start and stop the delivery of location-related events to your app.
///
/// Delegate calls arrive on the run loop of the thread that created the manager (see
/// `CallbackTarget`). The services Linux has no hardware for — beacon ranging, location pushes —
/// report their documented errors, and their availability methods return false: never a silent
/// no-op.
///
/// `@unchecked Sendable` is safe: every mutable property lives in `state`, a `Mutex`, and the
/// engine connection (`runtime`, `client`, `target`) is immutable after `init`.
open class CLLocationManager: NSObject, @unchecked Sendable {  // Sendable: safety argued in the comment above
    /// A weak delegate reference that can sit in the manager's `Mutex`.
    ///
    /// `@unchecked Sendable` is safe: the reference itself is only read and written under the
    /// manager's lock, and the delegate's methods are only ever called on the manager's own
    /// thread (through `CallbackTarget`), which is Apple's contract for delegates too.
    struct DelegateReference: @unchecked Sendable {  // Sendable: safety argued in the comment above
        weak var value: (any CLLocationManagerDelegate)?
    }

    struct State {
        var delegate = DelegateReference()
        var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
        var distanceFilter: CLLocationDistance = kCLDistanceFilterNone
        var activityType: CLActivityType = .other
        var pausesLocationUpdatesAutomatically = true
        var allowsBackgroundLocationUpdates = false
        var showsBackgroundLocationIndicator = false
        var headingFilter: CLLocationDegrees = 1
        var headingOrientation: CLDeviceOrientation = .portrait
        var isUpdatingLocation = false
        var location: CLLocation?
        /// The last heading delivered (CLLocationManager+Heading).
        var heading: CLHeading?
    }

    let runtime: any LocationRuntime
    let target: CallbackTarget
    /// This manager's registration for the daemon's pending events (CLLocationManager+Background).
    let pendingConsumer = Mutex<UInt64?>(nil)
    /// The manager's taker of pending significant changes (decision 0039): registered when it
    /// starts the service with a delegate set (or gets the delegate after starting it).
    let pendingLocations = Mutex<(wanted: Bool, consumer: UInt64?)>((false, nil))
    let state = Mutex(State())
    /// Beacon ranging and beacon regions (CLLocationManager+Beacons.swift).
    let beacons = BeaconClient()
    /// This manager's client of the heading runtime, made at its first heading call (CLLocationManager+Heading).
    let headingSession = Mutex<UInt64?>(nil)
    private let clientBox = Mutex<ClientID?>(nil)

    /// Creates a location manager connected to this process's location system.
    public override convenience init() {
        self.init(runtime: SharedRuntime.current)
    }

    init(runtime: any LocationRuntime, target: CallbackTarget = .current()) {
        self.runtime = runtime
        self.target = target
        super.init()
        let client = runtime.addClient(label: "CLLocationManager") { [weak self] event in
            self?.handle(event)
        }
        clientBox.withLock { $0 = client }
        // The app's beacon regions the database keeps are watched again once the app has a manager.
        runtime.restoreBeaconRegions()
        // Apple calls the authorization callbacks once when the manager is created.
        target.enqueue { [weak self] in self?.announceAuthorization() }
    }

    deinit {
        if let client = clientBox.withLock({ $0 }) {
            runtime.send(.unregister, from: client)
        }
        stopReceivingPending()
        stopReceivingPendingLocations()
        if let heading = headingSession.withLock({ $0 }) { headingRuntime.remove(heading) }
    }

    var client: ClientID? { clientBox.withLock { $0 } }

    func send(_ command: ClientCommand) {
        guard let client else { return }
        runtime.send(command, from: client)
    }

    // MARK: Delegate and configuration

    open weak var delegate: (any CLLocationManagerDelegate)? {
        get { state.withLock { $0.delegate }.value }
        set {
            let reference = DelegateReference(value: newValue)
            state.withLock { $0.delegate = reference }
            if newValue != nil {
                startReceivingPending()
                startReceivingPendingLocations()
            }
        }
    }

    /// Metres. Negative values ask for the best accuracy available; NaN is treated as
    /// `kCLLocationAccuracyBest`.
    open var desiredAccuracy: CLLocationAccuracy {
        get { state.withLock { $0.desiredAccuracy } }
        set {
            state.withLock { $0.desiredAccuracy = newValue }
            resendUpdatesIfActive()
        }
    }

    /// Metres. Zero, negative (`kCLDistanceFilterNone`) or NaN deliver every location.
    open var distanceFilter: CLLocationDistance {
        get { state.withLock { $0.distanceFilter } }
        set {
            state.withLock { $0.distanceFilter = newValue }
            resendUpdatesIfActive()
        }
    }

    open var activityType: CLActivityType {
        get { state.withLock { $0.activityType } }
        set {
            state.withLock { $0.activityType = newValue }
            resendUpdatesIfActive()
        }
    }

    open var pausesLocationUpdatesAutomatically: Bool {
        get { state.withLock { $0.pausesLocationUpdatesAutomatically } }
        set {
            state.withLock { $0.pausesLocationUpdatesAutomatically = newValue }
            resendUpdatesIfActive()
        }
    }

    /// The app's standard updates go on while it is not in front. On iOS, setting it without `location` in the
    /// Info.plist's `UIBackgroundModes` raises an exception; here the setting is refused with an error in the log
    /// and stays false. A running Linux process is always in use, so delivery is the same either way: the
    /// declaration is listed by `locationctl status` (`background` beside `updates`), decision 0047.
    open var allowsBackgroundLocationUpdates: Bool {
        get { state.withLock { $0.allowsBackgroundLocationUpdates } }
        set {
            if newValue, !runtime.authorization.identity.backgroundModes.contains("location") {
                runtime.logger.error(
                    "allowsBackgroundLocationUpdates needs UIBackgroundModes with 'location' in the Info.plist; left false",
                    metadata: ["app": "\(runtime.authorization.identity.id)"])
                return
            }
            state.withLock { $0.allowsBackgroundLocationUpdates = newValue }
            resendUpdatesIfActive()
        }
    }

    /// With `allowsBackgroundLocationUpdates`, the stand-in for iOS's status-bar indicator: `locationctl status`
    /// lists `indicator` beside the app's `updates` (decision 0047).
    open var showsBackgroundLocationIndicator: Bool {
        get { state.withLock { $0.showsBackgroundLocationIndicator } }
        set {
            state.withLock { $0.showsBackgroundLocationIndicator = newValue }
            resendUpdatesIfActive()
        }
    }

    /// The most recently delivered location, readable without a delegate. Before this manager
    /// has delivered one, the system's latest fix when the app holds full-accuracy authorization.
    open var location: CLLocation? {
        if let delivered = state.withLock({ $0.location }) { return delivered }
        let authorization = runtime.authorization.authorization
        guard authorization.allowsLocation, authorization.accuracy == .full, let fix = runtime.latestFix else {
            return nil
        }
        return CLLocation(fix: fix)
    }

    var currentRequest: UpdateRequest {
        state.withLock {
            UpdateRequest(
                desiredAccuracy: $0.desiredAccuracy, distanceFilter: $0.distanceFilter,
                activityType: $0.activityType.rawValue,
                pausesAutomatically: $0.pausesLocationUpdatesAutomatically,
                // nil rather than false: the request's wire form stays what it was for apps that set neither.
                allowsBackground: $0.allowsBackgroundLocationUpdates ? true : nil,
                showsIndicator: $0.allowsBackgroundLocationUpdates && $0.showsBackgroundLocationIndicator ? true : nil
            )
        }
    }

    private func resendUpdatesIfActive() {
        guard state.withLock({ $0.isUpdatingLocation }) else { return }
        send(.startUpdates(currentRequest))
    }

    // MARK: Standard location service

    open func startUpdatingLocation() {
        state.withLock { $0.isUpdatingLocation = true }
        send(.startUpdates(currentRequest))
    }

    open func stopUpdatingLocation() {
        state.withLock { $0.isUpdatingLocation = false }
        send(.stopUpdates)
    }

    /// Delivers exactly one location (or one `CLError.locationUnknown`) to the delegate, then stops.
    /// The engine waits up to 10 s for a fix meeting `desiredAccuracy`, then answers with the best
    /// fix it saw.
    open func requestLocation() {
        send(.requestLocation(currentRequest))
    }

    // MARK: Authorization

    /// The app's authorization status.
    open var authorizationStatus: CLAuthorizationStatus {
        CLAuthorizationStatus(runtime.authorization.authorization.level)
    }

    /// The app's authorization status (the older class method).
    @available(*, deprecated, message: "Use the instance property authorizationStatus")
    open class func authorizationStatus() -> CLAuthorizationStatus {
        CLAuthorizationStatus(SharedRuntime.current.authorization.authorization.level)
    }

    open var accuracyAuthorization: CLAccuracyAuthorization {
        runtime.authorization.authorization.accuracy == .full ? .fullAccuracy : .reducedAccuracy
    }

    /// Whether location services are on for the whole system. On Linux they are, unless
    /// `CORELOCATION_SERVICES=off` is set (the Settings app's global switch) or locationd's switch is off
    /// (`locationctl services off`): then every app reads `.denied`, requests are ignored and no source is
    /// powered (see `LocationServicesSwitch`).
    open class func locationServicesEnabled() -> Bool { SharedRuntime.current.servicesEnabled }

    /// Asks for when-in-use authorization. Does nothing unless the status is `.notDetermined`, and
    /// logs and ignores the request when the Info.plist lacks `NSLocationWhenInUseUsageDescription`.
    open func requestWhenInUseAuthorization() {
        runtime.authorization.requestWhenInUse()
    }

    /// Asks for always authorization: from `.notDetermined`, or once as an upgrade from
    /// when-in-use. Needs `NSLocationAlwaysAndWhenInUseUsageDescription` and
    /// `NSLocationWhenInUseUsageDescription` in the Info.plist.
    open func requestAlwaysAuthorization() {
        runtime.authorization.requestAlways()
    }

    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) {
        requestTemporaryFullAccuracyAuthorization(withPurposeKey: purposeKey, completion: nil)
    }

    /// Asks for precise location until the process exits. `completion` runs on the manager's thread.
    open func requestTemporaryFullAccuracyAuthorization(
        withPurposeKey purposeKey: String, completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        let target = self.target
        runtime.authorization.requestTemporaryFullAccuracy(purposeKey: purposeKey) { code in
            guard let completion else { return }
            let error = code.flatMap { CLError.Code(rawValue: $0.rawValue) }.map { CLError($0) }
            target.enqueue { completion(error) }
        }
    }

    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            runtime.authorization.requestTemporaryFullAccuracy(purposeKey: purposeKey) { code in
                if let code, let clCode = CLError.Code(rawValue: code.rawValue) {
                    continuation.resume(throwing: CLError(clCode))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Whether widgets of this app may receive location: there are no widgets on Linux.
    open var isAuthorizedForWidgetUpdates: Bool { false }

    // Services that later releases implement. Until then each one says so the way Apple's framework
    // does on hardware that lacks the service: its availability method returns false and its start
    // call reports the documented error through the delegate.

    // MARK: Heading (CLLocationManager+Heading.swift; filter and orientation are read at each sample)

    open class func headingAvailable() -> Bool { HeadingRuntime.shared.isAvailable }

    open var headingFilter: CLLocationDegrees {
        get { state.withLock { $0.headingFilter } }
        set { state.withLock { $0.headingFilter = newValue } }
    }

    open var headingOrientation: CLDeviceOrientation {
        get { state.withLock { $0.headingOrientation } }
        set { state.withLock { $0.headingOrientation = newValue } }
    }

    open var heading: CLHeading? { state.withLock { $0.heading } }

    open func startUpdatingHeading() { headingRuntime.start(headingClient()) }

    open func stopUpdatingHeading() { headingRuntime.stop(headingClient()) }

    open func dismissHeadingCalibrationDisplay() { headingRuntime.dismissCalibration(headingClient()) }

    // MARK: Region monitoring

    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { monitoringAvailable(for: regionClass) }

    /// The largest radius, metres, a monitored region may have (1 000 km unless configured).
    open var maximumRegionMonitoringDistance: CLLocationDistance { runtime.maximumRegionDistance }

    open var monitoredRegions: Set<CLRegion> { currentMonitoredRegions().union(beaconMonitoredRegions) }

    open func startMonitoring(for region: CLRegion) { startMonitoringRegion(region) }

    open func stopMonitoring(for region: CLRegion) {
        if beaconStopMonitoring(region) { return }
        send(.stopMonitoring(identifier: region.identifier))
    }

    open func requestState(for region: CLRegion) {
        if beaconRequestState(region) { return }
        send(.requestRegionState(identifier: region.identifier))
    }

    // MARK: Significant change and visits

    open class func significantLocationChangeMonitoringAvailable() -> Bool { true }

    open func startMonitoringSignificantLocationChanges() {
        send(.startSignificantChanges)
        pendingLocations.withLock { $0.wanted = true }
        startReceivingPendingLocations()
    }

    open func stopMonitoringSignificantLocationChanges() {
        send(.stopSignificantChanges)
        stopReceivingPendingLocations()
    }

    open func startMonitoringVisits() { send(.startVisits) }

    open func stopMonitoringVisits() { send(.stopVisits) }

    // MARK: Deferred updates

    open class func deferredLocationUpdatesAvailable() -> Bool { true }

    open func allowDeferredLocationUpdates(untilTraveled distance: CLLocationDistance, timeout: TimeInterval) {
        send(.allowDeferredUpdates(distance: distance, timeout: timeout))
    }

    open func disallowDeferredLocationUpdates() { send(.disallowDeferredUpdates) }

    // MARK: Beacons (CLLocationManager+Beacons.swift: BlueZ, or CORELOCATION_BEACONS)

    /// True when a powered Bluetooth adapter is there (or a simulation runs; docs/decisions/0029).
    open class func isRangingAvailable() -> Bool { beaconRangingAvailable() }

    open var rangedRegions: Set<CLRegion> { beaconRangedRegions }

    open var rangedBeaconConstraints: Set<CLBeaconIdentityConstraint> { beaconRangedConstraints }

    open func startRangingBeacons(in region: CLBeaconRegion) { beaconStartRanging(.region(region)) }

    open func stopRangingBeacons(in region: CLBeaconRegion) { beaconStopRanging(.region(region)) }

    open func startRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {
        beaconStartRanging(.constraint(constraint))
    }

    open func stopRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {
        beaconStopRanging(.constraint(constraint))
    }

    // MARK: Location pushes (an Apple Push Notification service feature)

    open func startMonitoringLocationPushes(completion: ((Data?, (any Error)?) -> Void)? = nil) {
        completion?(nil, CLLocationPushServiceError(.unsupportedPlatform))
    }

    open func stopMonitoringLocationPushes() {}

    // MARK: Events from the engine

    private func handle(_ event: ClientEvent) {
        switch event {
        case let .delivery(delivery):
            // The objects are made on the delegate's thread: the engine's thread is a replay's bottleneck.
            let fixes = delivery.fixes
            target.enqueue(counting: runtime.flow) { [weak self] in
                guard let self else { return }
                let locations = fixes.map(CLLocation.init(fix:))
                if let last = locations.last { state.withLock { $0.location = last } }
                delegate?.locationManager(self, didUpdateLocations: locations)
            }
        case let .failure(failure):
            let error = CLError(failure.clErrorCode)
            target.enqueue { [weak self] in
                guard let self else { return }
                delegate?.locationManager(self, didFailWithError: error)
            }
        case .authorization:
            target.enqueue { [weak self] in self?.announceAuthorization() }
        case let .region(notice):
            deliverRegionNotice(notice)
        case let .beaconRegion(notice):
            deliverBeaconRegionNotice(notice)
        case let .deferredFinished(error):
            deliverDeferralEnd(error)
        case let .visit(visit):
            let clVisit = CLVisit(visit)
            callDelegate { manager, delegate in delegate.locationManager(manager, didVisit: clVisit) }
        case let .paused(isPaused):
            callDelegate { manager, delegate in
                if isPaused {
                    delegate.locationManagerDidPauseLocationUpdates(manager)
                } else {
                    delegate.locationManagerDidResumeLocationUpdates(manager)
                }
            }
        }
    }

    private func announceAuthorization() {
        let status = authorizationStatus
        delegate?.locationManagerDidChangeAuthorization(self)
        delegate?.locationManager(self, didChangeAuthorization: status)
    }

    /// Calls a delegate method on the manager's thread.
    func callDelegate(_ call: @escaping @Sendable (CLLocationManager, any CLLocationManagerDelegate) -> Void) {
        target.enqueue { [weak self] in
            guard let self, let delegate = self.delegate else { return }
            call(self, delegate)
        }
    }
}

extension EngineFailure {
    var clErrorCode: CLError.Code {
        switch self {
        case .locationUnknown: .locationUnknown
        case .denied: .denied
        }
    }
}

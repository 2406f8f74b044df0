import CoreLocationDBus
import Dispatch
import Foundation
import Logging
import Synchronization

/// LE advertisements from BlueZ (bluetoothd) over D-Bus.
///
/// While anyone subscribes: the first powered `org.bluez.Adapter1` (by object path) gets `SetDiscoveryFilter`
/// (`Transport` "le", `DuplicateData` true — a PropertiesChanged per advertisement, not only on change) and
/// `StartDiscovery`; after the last subscriber, `StopDiscovery`. Devices come from `InterfacesAdded` and
/// `PropertiesChanged` on `org.bluez.Device1` (ManufacturerData, ServiceData, RSSI); each one that carries RSSI
/// or advertising data is one advertisement.
///
/// Passive scanning (docs/decisions/0051): when the adapter offers `org.bluez.AdvertisementMonitorManager1` with
/// the `or_patterns` type (and `scanMode` is not `.active`), an advertisement monitor matching the three beacon
/// frames is registered instead, and discovery is not started; the same Device1 signals carry the adverts. A
/// refused registration or a monitor BlueZ releases falls back to discovery.
///
/// Survives: no adapter (unavailable until one appears), the adapter powered off or removed (readings cleared,
/// unavailable; scanning restarts when it is powered again or another appears), bluetoothd gone (the same;
/// everything is set up again, the monitor registered again, when `org.bluez` has an owner again).
public final class BlueZScanner: BeaconScanner, ScanningLifecycle {
    public static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"

    struct State {
        var subscribers: BeaconSubscribers?
        var watches: [DBusSubscription] = []
        var adapter: String?
        var available = false
        /// Whether subscribers heard an availability since the set-up (the first "unavailable" is news too).
        var announced = false
        var devices: [String: BlueZDevice] = [:]
        /// Bumped by every setup and teardown, so a refresh that finishes late does nothing.
        var generation = 0
        /// The beacon monitor's objects, exported while scanning (BlueZScanner+Monitor.swift).
        var monitorExport: DBusExport?
        /// The adapter our monitor is registered with (passive scanning), nil while discovering.
        var monitorAdapter: String?
        /// BlueZ released our monitor: discovery until bluetoothd restarts or scanning is set up again.
        var monitorReleased = false
        /// Subscribers that want every advertisement (ranging): while there are any, discovery runs beside
        /// the monitor, since passively bluetoothd reports a reading only when it moves by 8 dB.
        var rangingSubscribers = 0
        /// Discovery started beside the monitor for them.
        var discoveringBesideMonitor = false
    }

    let client: DBusClient
    let logger: Logger
    let state = Mutex(State())
    /// Which kind of scanning this scanner may use.
    public let scanMode: BlueZScanMode
    /// The root of this scanner's monitor objects (unique per scanner: several may share a connection).
    let monitorRoot: String

    public init(
        client: DBusClient, scanMode: BlueZScanMode = .automatic,
        logger: Logger = Logger(label: "corelocation.beacons.bluez")
    ) {
        self.client = client
        self.scanMode = scanMode
        self.logger = logger
        monitorRoot = Self.monitorRootPrefix + String(Self.scannerCount.add(1, ordering: .relaxed).newValue)
    }

    /// A scanner on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), scanning as `CORELOCATION_BLUEZ_SCAN`
    /// says (`BlueZScanMode(environment:logger:)`) unless `scanMode` is given.
    public convenience init(
        scanMode: BlueZScanMode? = nil, logger: Logger = Logger(label: "corelocation.beacons.bluez")
    ) throws {
        let mode = scanMode ?? BlueZScanMode(environment: ProcessInfo.processInfo.environment, logger: logger)
        self.init(client: try DBusClient(bus: .system, logger: logger), scanMode: mode, logger: logger)
    }

    /// Why scanning cannot start, for an error of `init` (connecting to the system bus), in words that name what
    /// to install: "beacons: needs the system D-Bus (Debian package dbus) and BlueZ (Debian package bluez): …".
    public static func reason(connecting error: any Error) -> String {
        if let error = error as? DBusCallError, let missing = error.missingPart(service: "BlueZ", package: "bluez") {
            return "beacons: \(missing)"
        }
        return "beacons: cannot reach the system bus (\(error))"
    }

    public var isAvailable: Bool { state.withLock { $0.available } }

    public func checkAvailability(timeout: Duration) -> Bool {
        if isAvailable { return true }
        let answer = Mutex(false)
        let answered = DispatchSemaphore(value: 0)
        do {
            // The reply handler runs on the D-Bus connection's thread, so this wait needs no pool thread.
            try client.call(
                destination: Self.service, path: "/", interface: DBusClient.objectManagerInterface,
                member: "GetManagedObjects", timeout: timeout
            ) { reply in
                let objects = (try? reply.get()).flatMap { try? DBusClient.managedObjects(inReply: $0) } ?? [:]
                answer.withLock { $0 = objects.values.contains { $0[Self.adapterInterface]?["Powered"]?.bool == true } }
                answered.signal()
            }
        } catch {
            return false
        }
        // libdbus answers a timed-out call itself (NoReply); the extra second only guards against a lost reply.
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        guard answered.wait(timeout: .now() + seconds + 1) == .success else { return false }
        return answer.withLock { $0 }
    }

    /// The adapter scanning now (`/org/bluez/hci0`), if any.
    public var adapterPath: String? { state.withLock { $0.available ? $0.adapter : nil } }

    /// True while an advertisement monitor (passive scanning) rather than discovery feeds the scanner.
    public var isScanningPassively: Bool { state.withLock { $0.available && $0.monitorAdapter != nil } }

    private var subscribers: BeaconSubscribers {
        state.withLock { BeaconSubscribers.stored(in: &$0.subscribers, for: self) }
    }

    public func subscribe(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription {
        subscribe(wantsEveryAdvertisement: true, handler)
    }

    public func subscribe(
        wantsEveryAdvertisement: Bool, _ handler: @escaping @Sendable (BeaconScanEvent) -> Void
    ) -> BeaconScanSubscription {
        let available = isAvailable
        if wantsEveryAdvertisement { rangingSubscribersChanged(by: 1) }
        let subscription = subscribers.add(handler)
        if available { handler(.availability(true)) }
        guard wantsEveryAdvertisement else { return subscription }
        return BeaconScanSubscription { [weak self] in
            subscription.cancel()
            self?.rangingSubscribersChanged(by: -1)
        }
    }

    /// Starts discovery beside the monitor for the first ranging subscriber, stops it after the last.
    private func rangingSubscribersChanged(by delta: Int) {
        let change = state.withLock { state -> (adapter: String, start: Bool)? in
            state.rangingSubscribers += delta
            // `passive` was asked for: no discovery, ranging or not.
            guard scanMode == .automatic, state.available, let adapter = state.monitorAdapter else { return nil }
            let wanted = state.rangingSubscribers > 0
            guard wanted != state.discoveringBesideMonitor else { return nil }
            state.discoveringBesideMonitor = wanted
            return (adapter, wanted)
        }
        guard let change else { return }
        Task {
            // Taken in turns with the other changes: act only if this is still what is wanted.
            guard state.withLock({ $0.discoveringBesideMonitor == change.start && $0.monitorAdapter == change.adapter })
            else { return }
            if change.start {
                _ = await startDiscovery(on: change.adapter, objects: [:])
            } else {
                await stopDiscovery(on: change.adapter)
            }
        }
    }

    // MARK: Set-up and teardown

    func beginScanning() {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        Task { await self.watch(generation: generation) }
    }

    func endScanning() {
        let (watches, adapter, monitorAdapter, export, besideMonitor) = state.withLock {
            state -> ([DBusSubscription], String?, String?, DBusExport?, Bool) in
            state.generation += 1
            defer {
                state.discoveringBesideMonitor = false
                state.watches = []
                state.devices = [:]
                state.adapter = nil
                state.available = false
                state.announced = false
                state.monitorExport = nil
                state.monitorAdapter = nil
                state.monitorReleased = false
            }
            return (
                state.watches, state.available ? state.adapter : nil, state.monitorAdapter, state.monitorExport,
                state.discoveringBesideMonitor
            )
        }
        for watch in watches { watch.cancel() }
        if let monitorAdapter {
            Task {
                if besideMonitor { await stopDiscovery(on: monitorAdapter) }
                await unregisterMonitor(on: monitorAdapter)
                export?.cancel()
            }
            return
        }
        export?.cancel()
        guard let adapter else { return }
        Task { await stopDiscovery(on: adapter) }
    }

    /// `StopDiscovery`, best effort (the adapter or bluetoothd may be gone).
    private func stopDiscovery(on adapter: String) async {
        do {
            _ = try await client.call(
                destination: Self.service, path: adapter, interface: Self.adapterInterface, member: "StopDiscovery")
        } catch {
            logger.debug("StopDiscovery on \(adapter): \(error)")
        }
    }

    func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.generation == generation } }

    private func watch(generation: Int) async {
        do {
            var watches: [DBusSubscription] = []
            watches += try await client.watchObjects(
                sender: Self.service, managerPath: "/",
                added: { [weak self] path, interfaces in self?.added(path, interfaces, generation: generation) },
                removed: { [weak self] path, interfaces in self?.removed(path, interfaces, generation: generation) })
            watches.append(
                try await client.watchProperties(
                    sender: Self.service, interface: Self.deviceInterface, pathNamespace: "/org/bluez"
                ) { [weak self] path, changed, _ in self?.deviceChanged(path, changed) })
            watches.append(
                try await client.watchProperties(
                    sender: Self.service, interface: Self.adapterInterface, pathNamespace: "/org/bluez"
                ) { [weak self] path, changed, _ in self?.adapterChanged(path, changed, generation: generation) })
            watches.append(
                try await client.watchNameOwner(Self.service) { [weak self] owner in
                    self?.ownerChanged(owner, generation: generation)
                })
            let kept = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.watches = watches
                return true
            }
            if !kept { for watch in watches { watch.cancel() } }
        } catch {
            logger.warning("BlueZ: cannot watch the bus: \(error)")
            setUnavailable()
        }
    }

    private func ownerChanged(_ owner: String?, generation: Int) {
        guard isCurrent(generation) else { return }
        // A new (or no) bluetoothd knows nothing of our monitor: register it again, passive allowed again.
        state.withLock { state in
            state.monitorAdapter = nil
            state.monitorReleased = false
            state.discoveringBesideMonitor = false
        }
        if owner == nil {
            logger.info("BlueZ: bluetoothd is not running")
            setUnavailable()
        } else {
            Task { await self.refresh(generation: generation) }
        }
    }

    /// Reads the adapters and devices, picks the first powered adapter and registers the beacon monitor with it
    /// or starts discovery on it.
    func refresh(generation: Int) async {
        let objects: [String: [String: [String: DBusValue]]]
        do {
            objects = try await client.managedObjects(at: "/", on: Self.service, timeout: .seconds(5))
        } catch {
            logger.info("BlueZ: GetManagedObjects failed: \(error)")
            setUnavailable()
            return
        }
        let adapter = objects.keys.sorted().first { path in
            objects[path]?[Self.adapterInterface]?["Powered"]?.bool == true
        }
        guard let adapter else {
            logger.info("BlueZ: no powered adapter")
            setUnavailable()
            return
        }
        guard isCurrent(generation) else { return }
        let passive = await startMonitor(on: adapter, objects: objects, generation: generation)
        if passive, scanMode == .automatic, state.withLock({ $0.rangingSubscribers > 0 }) {
            // Something ranges: every reading, from discovery beside the monitor (again after a power cycle).
            state.withLock { $0.discoveringBesideMonitor = true }
            _ = await startDiscovery(on: adapter, objects: objects)
        }
        if !passive {
            guard scanMode != .passive else {
                logger.warning("BlueZ: \(BlueZScanMode.environmentKey)=passive, and \(adapter) cannot monitor; not scanning")
                setUnavailable()
                return
            }
            guard await startDiscovery(on: adapter, objects: objects) else {
                setUnavailable()
                return
            }
        }
        var devices: [String: BlueZDevice] = [:]
        for (path, interfaces) in objects where path.hasPrefix(adapter + "/") {
            guard let properties = interfaces[Self.deviceInterface] else { continue }
            var device = BlueZDevice()
            _ = device.merge(properties)
            devices[path] = device
        }
        let subscribers = state.withLock { state -> BeaconSubscribers? in
            guard state.generation == generation else { return nil }
            state.adapter = adapter
            state.devices = devices
            guard !state.available else { return nil }
            state.available = true
            state.announced = true
            return state.subscribers
        }
        subscribers?.send(.availability(true))
    }

    /// `SetDiscoveryFilter` (LE, duplicates) and `StartDiscovery` (or joining one already running); false when
    /// BlueZ refused.
    private func startDiscovery(on adapter: String, objects: [String: [String: [String: DBusValue]]]) async -> Bool {
        do {
            _ = try await client.call(
                destination: Self.service, path: adapter, interface: Self.adapterInterface,
                member: "SetDiscoveryFilter",
                arguments: [.dictionary(["Transport": .string("le"), "DuplicateData": .bool(true)])],
                timeout: .seconds(5))
            let discovering = objects[adapter]?[Self.adapterInterface]?["Discovering"]?.bool == true
            do {
                _ = try await client.call(
                    destination: Self.service, path: adapter, interface: Self.adapterInterface,
                    member: "StartDiscovery", timeout: .seconds(5))
            } catch let error as DBusCallError where discovering && error.name == "org.bluez.Error.InProgress" {
                // Someone else's discovery is running: ours joins it.
            }
        } catch {
            logger.warning("BlueZ: starting discovery on \(adapter) failed: \(error)")
            return false
        }
        logger.info("BlueZ: active scanning (discovery) on \(adapter)")
        return true
    }

    func setUnavailable() {
        let subscribers = state.withLock { state -> BeaconSubscribers? in
            state.devices = [:]
            guard state.available || !state.announced else { return nil }
            state.available = false
            state.announced = true
            return state.subscribers
        }
        subscribers?.send(.availability(false))
    }

    // MARK: Signals (on the D-Bus loop thread: no waiting here)

    private func added(_ path: String, _ interfaces: [String: [String: DBusValue]], generation: Int) {
        if interfaces[Self.adapterInterface] != nil {
            let needed = state.withLock { $0.generation == generation && !$0.available }
            if needed { Task { await self.refresh(generation: generation) } }
        }
        if let properties = interfaces[Self.deviceInterface] { deviceChanged(path, properties) }
    }

    private func removed(_ path: String, _ interfaces: [String], generation: Int) {
        if interfaces.contains(Self.adapterInterface) {
            let wasOurs = state.withLock { state -> Bool in
                // BlueZ drops an adapter's monitors with it.
                if state.monitorAdapter == path {
                    state.monitorAdapter = nil
                    state.discoveringBesideMonitor = false
                }
                return state.adapter == path
            }
            if wasOurs {
                logger.info("BlueZ: adapter \(path) removed")
                setUnavailable()
                state.withLock { $0.adapter = nil }
                // Another adapter may be there.
                Task { await self.refresh(generation: generation) }
            }
        }
        if interfaces.contains(Self.deviceInterface) { _ = state.withLock { $0.devices.removeValue(forKey: path) } }
    }

    private func adapterChanged(_ path: String, _ changed: [String: DBusValue], generation: Int) {
        guard let powered = changed["Powered"]?.bool else { return }
        let ours = state.withLock { $0.adapter == path || $0.adapter == nil }
        guard ours else { return }
        if powered {
            Task { await self.refresh(generation: generation) }
        } else {
            logger.info("BlueZ: adapter \(path) powered off")
            setUnavailable()
        }
    }

    /// A matched device heard again with nothing new to say (passive scanning's DeviceFound): its last data as
    /// an advertisement without a reading (RSSI 0), so ranging lists it and a region keeps it inside without a
    /// stale RSSI counting as a sample.
    func devicePresent(_ path: String) {
        let (advertisement, subscribers) = state.withLock { state -> (BeaconAdvertisement?, BeaconSubscribers?) in
            guard state.available, let adapter = state.adapter, path.hasPrefix(adapter + "/") else { return (nil, nil) }
            return (state.devices[path]?.advertisement, state.subscribers)
        }
        guard var advertisement else { return }
        advertisement.rssi = 0
        subscribers?.send(.advertisement(advertisement))
    }

    private func deviceChanged(_ path: String, _ changed: [String: DBusValue]) {
        let (advertisement, subscribers) = state.withLock { state -> (BeaconAdvertisement?, BeaconSubscribers?) in
            guard state.available, let adapter = state.adapter, path.hasPrefix(adapter + "/") else { return (nil, nil) }
            var device = state.devices[path] ?? BlueZDevice()
            let advertised = device.merge(changed)
            state.devices[path] = device
            return (advertised ? device.advertisement : nil, state.subscribers)
        }
        if let advertisement { subscribers?.send(.advertisement(advertisement)) }
    }
}

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
/// Survives: no adapter (unavailable until one appears), the adapter powered off or removed (readings cleared,
/// unavailable; discovery restarts when it is powered again or another appears), bluetoothd gone (the same;
/// everything is set up again when `org.bluez` has an owner again). The AdvertisementMonitor API (passive
/// scanning) is not used (docs/decisions/0029).
public final class BlueZScanner: BeaconScanner, ScanningLifecycle {
    public static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"

    private struct State {
        var subscribers: BeaconSubscribers?
        var watches: [DBusSubscription] = []
        var adapter: String?
        var available = false
        /// Whether subscribers heard an availability since the set-up (the first "unavailable" is news too).
        var announced = false
        var devices: [String: BlueZDevice] = [:]
        /// Bumped by every setup and teardown, so a refresh that finishes late does nothing.
        var generation = 0
    }

    private let client: DBusClient
    private let logger: Logger
    private let state = Mutex(State())

    public init(client: DBusClient, logger: Logger = Logger(label: "corelocation.beacons.bluez")) {
        self.client = client
        self.logger = logger
    }

    /// A scanner on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
    public convenience init(logger: Logger = Logger(label: "corelocation.beacons.bluez")) throws {
        self.init(client: try DBusClient(bus: .system, logger: logger), logger: logger)
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

    private var subscribers: BeaconSubscribers {
        state.withLock { BeaconSubscribers.stored(in: &$0.subscribers, for: self) }
    }

    public func subscribe(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription {
        let available = isAvailable
        let subscription = subscribers.add(handler)
        if available { handler(.availability(true)) }
        return subscription
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
        let (watches, adapter) = state.withLock { state -> ([DBusSubscription], String?) in
            state.generation += 1
            defer {
                state.watches = []
                state.devices = [:]
                state.adapter = nil
                state.available = false
                state.announced = false
            }
            return (state.watches, state.available ? state.adapter : nil)
        }
        for watch in watches { watch.cancel() }
        guard let adapter else { return }
        Task {
            do {
                _ = try await client.call(
                    destination: Self.service, path: adapter, interface: Self.adapterInterface,
                    member: "StopDiscovery")
            } catch {
                logger.debug("StopDiscovery on \(adapter): \(error)")
            }
        }
    }

    private func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.generation == generation } }

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
        if owner == nil {
            logger.info("BlueZ: bluetoothd is not running")
            setUnavailable()
        } else {
            Task { await self.refresh(generation: generation) }
        }
    }

    /// Reads the adapters and devices, picks the first powered adapter and starts discovery on it.
    private func refresh(generation: Int) async {
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
            setUnavailable()
            return
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
        logger.debug("BlueZ: discovering on \(adapter)")
        subscribers?.send(.availability(true))
    }

    private func setUnavailable() {
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
            let wasOurs = state.withLock { $0.adapter == path }
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

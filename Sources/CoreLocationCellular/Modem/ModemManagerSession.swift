import CoreLocationDBus
import CoreLocationNetwork
import CoreLocationSources
import Logging

/// What a modem's Location interface reported (one `Location` value, `a{uv}`).
public struct ModemLocationUpdate: Sendable, Hashable {
    public var modem: String
    /// `GPS_NMEA`: NMEA traces, one per line.
    public var nmea: String?
    /// `GPS_RAW` (an `a{sv}` dictionary, see `ModemGPSRaw`), only from a modem without `GPS_NMEA`: a modem that has
    /// NMEA is set up for NMEA, and its GPS_RAW (built from the same GGA) would repeat the fix.
    public var gpsRaw: DBusValue?
    /// `3GPP_LAC_CI`: `"MCC,MNC,LAC,CI,TAC"`.
    public var cell: String?
    /// The modem's `AccessTechnologies` when it reported (the serving cell's radio).
    public var accessTechnologies: UInt32
}

/// What the modem sources hear from the session.
public enum ModemSessionEvent: Sendable, Hashable {
    case location(ModemLocationUpdate)
    case modemsChanged([ModemStatus])
}

/// Which kind of location the clients want from the modems (docs/decisions/0035).
public enum ModemDemand: Sendable, Hashable {
    /// The modem's GNSS (GPS_NMEA, else GPS_RAW): some client wants better than about 100 m.
    case gnss
    /// The serving cell (3GPP_LAC_CI): kilometre accuracy, reduced accuracy, significant changes, regions.
    case cell
}

/// ModemManager on the system bus: the modems (followed through its ObjectManager and its name owner, so a
/// restart is seen), their Location setup driven by the sources' demand, and their location updates
/// (PropertiesChanged when `SignalsLocation` is on, else `GetLocation` every `pollInterval`).
///
/// Setup: the modem's earlier `Enabled` and `SignalsLocation` are remembered at our first Setup and restored
/// when no demand is left; what the modem had enabled before stays enabled meanwhile (another program may use
/// it). Signal handlers only queue events; one task handles them in arrival order.
public actor ModemManagerSession {
    public static let service = "org.freedesktop.ModemManager1"
    public static let managerPath = "/org/freedesktop/ModemManager1"
    public static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    public static let locationInterface = "org.freedesktop.ModemManager1.Modem.Location"

    enum Incoming: Sendable {
        case owner(String?)
        case added(String, [String: [String: DBusValue]])
        case removed(String, [String])
        case properties(String, String, [String: DBusValue])
        case poll
    }

    private let client: DBusClient
    private let scheduler: any Scheduler
    private let logger: Logger
    private let timeout: Duration
    public let pollInterval: Double
    private let incoming: AsyncStream<Incoming>
    private let input: AsyncStream<Incoming>.Continuation

    private var modems: [String: ModemStatus] = [:]
    private var earlier: [String: (enabled: ModemLocationCapabilities, signals: Bool)] = [:]
    private var applied: [String: ModemLocationCapabilities] = [:]
    private var refused: Set<String> = []
    private var demand: [ModemDemand: Int] = [:]
    private var listeners: [Int: @Sendable (ModemSessionEvent) -> Void] = [:]
    private var nextListener = 0
    private var subscriptions: [DBusSubscription] = []
    private var pollTimer: (any ScheduledWork)?
    private var consumer: Task<Void, Never>?
    private var owner: String?
    /// Setup calls made, in order (path, sources, signal): for tests and `locationctl sources`.
    public private(set) var setupLog: [(path: String, sources: ModemLocationCapabilities, signals: Bool)] = []

    public init(
        client: DBusClient, scheduler: any Scheduler, pollInterval: Double = 1, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "corelocation.modem")
    ) {
        self.client = client
        self.scheduler = scheduler
        self.pollInterval = pollInterval
        self.timeout = timeout
        self.logger = logger
        (incoming, input) = AsyncStream.makeStream(of: Incoming.self)
    }

    /// Subscribes to ModemManager's signals and reads its modems (none when it is not running: it is then
    /// picked up when it starts).
    public func start() async throws {
        guard consumer == nil else { return }
        let stream = incoming
        consumer = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                await self.handle(event)
            }
        }
        let input = self.input
        subscriptions += try await client.watchObjects(
            sender: Self.service, managerPath: Self.managerPath,
            added: { path, interfaces in input.yield(.added(path, interfaces)) },
            removed: { path, names in input.yield(.removed(path, names)) })
        for interface in [Self.modemInterface, Self.locationInterface] {
            subscriptions.append(
                try await client.watchProperties(
                    sender: Self.service, interface: interface, pathNamespace: Self.managerPath
                ) { path, changed, _ in input.yield(.properties(path, interface, changed)) })
        }
        subscriptions.append(try await client.watchNameOwner(Self.service) { owner in input.yield(.owner(owner)) })
    }

    /// Restores every modem's earlier setup and stops listening.
    public func close() async {
        demand = [:]
        await applyDemand()
        for subscription in subscriptions { subscription.cancel() }
        subscriptions = []
        pollTimer?.cancel()
        input.finish()
        consumer = nil
    }

    public var status: [ModemStatus] { modems.values.sorted { $0.path < $1.path } }

    /// Adds a listener (starting the session if needed); returns its token for `removeListener`. It gets the
    /// modems at once.
    public func addListener(_ listener: @escaping @Sendable (ModemSessionEvent) -> Void) async -> Int {
        if consumer == nil {
            do { try await start() } catch {
                logger.warning("ModemManager: cannot subscribe", metadata: ["error": "\(error)"])
            }
        }
        nextListener += 1
        listeners[nextListener] = listener
        listener(.modemsChanged(status))
        return nextListener
    }

    public func removeListener(_ token: Int) { listeners[token] = nil }

    /// One more (or one fewer) client of a kind; the modems' setup follows.
    public func changeDemand(_ kind: ModemDemand, by delta: Int) async {
        demand[kind] = max(0, (demand[kind] ?? 0) + delta)
        if demand.values.allSatisfy({ $0 == 0 }) { refused = [] }
        await applyDemand()
    }

    /// Handles everything queued so far (tests: after a driver script changed the mock).
    public func settle() async {
        for _ in 0..<3 { await Task.yield() }
    }

    // MARK: Events

    private func handle(_ event: Incoming) async {
        switch event {
        case .owner(let newOwner):
            guard newOwner != owner else { return }
            owner = newOwner
            // A new ModemManager knows nothing of our setup: start over.
            modems = [:]
            earlier = [:]
            applied = [:]
            refused = []
            if newOwner != nil { await load() }
            notify(.modemsChanged(status))
            await applyDemand()
        case .added(let path, let interfaces):
            var modem = modems[path] ?? ModemStatus(path: path)
            if let properties = interfaces[Self.modemInterface] { Self.update(&modem, modem: properties) }
            if let properties = interfaces[Self.locationInterface] { Self.update(&modem, location: properties) }
            guard interfaces[Self.modemInterface] != nil || modems[path] != nil else { return }
            modems[path] = modem
            notify(.modemsChanged(status))
            await applyDemand()
        case .removed(let path, let names):
            guard modems[path] != nil else { return }
            if names.contains(Self.modemInterface) {
                modems[path] = nil
                earlier[path] = nil
                applied[path] = nil
            } else if names.contains(Self.locationInterface) {
                modems[path]?.capabilities = nil
                applied[path] = nil
            }
            notify(.modemsChanged(status))
        case .properties(let path, let interface, let changed):
            guard var modem = modems[path] else { return }
            if interface == Self.modemInterface {
                let wasUsable = modem.state.isUsable
                Self.update(&modem, modem: changed)
                modems[path] = modem
                notify(.modemsChanged(status))
                if modem.state.isUsable != wasUsable { await applyDemand() }
            } else {
                Self.update(&modem, location: changed)
                modems[path] = modem
                if let location = changed["Location"] { deliver(path, location) }
            }
        case .poll:
            pollTimer = nil
            await poll()
        }
    }

    private func load() async {
        do {
            let objects = try await client.managedObjects(at: Self.managerPath, on: Self.service, timeout: timeout)
            for (path, interfaces) in objects {
                guard let properties = interfaces[Self.modemInterface] else { continue }
                var modem = ModemStatus(path: path)
                Self.update(&modem, modem: properties)
                if let location = interfaces[Self.locationInterface] { Self.update(&modem, location: location) }
                modems[path] = modem
            }
        } catch {
            logger.info("ModemManager: cannot list modems", metadata: ["error": "\(error)"])
        }
    }

    private func notify(_ event: ModemSessionEvent) {
        for listener in listeners.values { listener(event) }
    }

    private func deliver(_ path: String, _ location: DBusValue) {
        var update = ModemLocationUpdate(modem: path, accessTechnologies: modems[path]?.accessTechnologies ?? 0)
        for entry in location.elements ?? [] {
            guard case .dictEntry(let key, let value) = entry, let source = key.integer else { continue }
            switch ModemLocationCapabilities(rawValue: UInt32(truncatingIfNeeded: source)) {
            case .gpsNMEA: update.nmea = value.string
            case .gpsRaw where modems[path]?.capabilities?.contains(.gpsNMEA) != true: update.gpsRaw = value.unwrapped
            case .threeGPPCell: update.cell = value.string
            default: continue
            }
        }
        guard update.nmea != nil || update.cell != nil || update.gpsRaw != nil else { return }
        if let cell = update.cell {
            let radio = CellRadioFromAccessTechnology.radio(update.accessTechnologies)
            modems[path]?.servingCell = try? CellIdentity(modemManager: cell, radio: radio)
        }
        notify(.location(update))
    }

    // MARK: Setup

    /// What `modem` should have enabled for the current demand (before adding its earlier setup).
    func needed(_ modem: ModemStatus) -> ModemLocationCapabilities {
        guard modem.state.isUsable, let capabilities = modem.capabilities else { return [] }
        var needed: ModemLocationCapabilities = []
        if (demand[.gnss] ?? 0) > 0 {
            needed.formUnion(capabilities.contains(.gpsNMEA) ? .gpsNMEA : capabilities.intersection(.gpsRaw))
        }
        if (demand[.cell] ?? 0) > 0 { needed.formUnion(capabilities.intersection(.threeGPPCell)) }
        return needed
    }

    private func applyDemand() async {
        for path in modems.keys.sorted() {
            guard let modem = modems[path] else { continue }
            let needed = needed(modem)
            if needed.isEmpty {
                guard let saved = earlier[path] else { continue }
                earlier[path] = nil
                applied[path] = nil
                _ = await setup(path, saved.enabled, signals: saved.signals)
                continue
            }
            guard !refused.contains(path) else { continue }
            if earlier[path] == nil { earlier[path] = (modem.enabled, modem.signalsLocation) }
            let target = needed.union(earlier[path]?.enabled ?? [])
            guard applied[path] != target else { continue }
            if await setup(path, target, signals: true) {
                applied[path] = target
                modems[path]?.problem = nil
                await readLocation(path)
            } else {
                refused.insert(path)
                earlier[path] = nil
            }
            notify(.modemsChanged(status))
        }
        schedulePolling()
    }

    private func setup(_ path: String, _ sources: ModemLocationCapabilities, signals: Bool) async -> Bool {
        setupLog.append((path, sources, signals))
        do {
            _ = try await client.call(
                destination: Self.service, path: path, interface: Self.locationInterface, member: "Setup",
                arguments: [.uint32(sources.rawValue), .bool(signals)], timeout: timeout)
            return true
        } catch {
            let problem = Self.describe(error, doing: "location setup")
            modems[path]?.problem = problem
            logger.warning("ModemManager refused location setup", metadata: ["modem": "\(path)", "error": "\(error)"])
            return false
        }
    }

    static func describe(_ error: any Error, doing what: String) -> String {
        if let error = error as? DBusCallError, let name = error.name {
            if name.hasSuffix("Unauthorized") || name.hasSuffix("AccessDenied") || name.hasSuffix("NotAuthorized") {
                return "\(what) refused: not authorized (polkit: install packaging/polkit/50-corelocation-modemmanager.rules)"
            }
            return "\(what) refused: \(name)"
        }
        return "\(what) failed: \(error)"
    }

    /// `GetLocation` once (after Setup, and when polling); needs the same authorization as Setup.
    private func readLocation(_ path: String) async {
        do {
            let reply = try await client.call(
                destination: Self.service, path: path, interface: Self.locationInterface, member: "GetLocation",
                timeout: timeout)
            if let location = reply.first { deliver(path, location) }
        } catch {
            modems[path]?.problem = Self.describe(error, doing: "GetLocation")
        }
        if let properties = try? await client.properties(
            of: Self.locationInterface, at: path, on: Self.service, timeout: timeout),
            var modem = modems[path]
        {
            Self.update(&modem, location: properties.filter { $0.key != "Location" })
            modems[path] = modem
        }
    }

    private func schedulePolling() {
        let polled = applied.keys.contains { modems[$0]?.signalsLocation == false }
        guard polled, pollTimer == nil else {
            if !polled {
                pollTimer?.cancel()
                pollTimer = nil
            }
            return
        }
        let input = self.input
        pollTimer = scheduler.schedule(at: scheduler.now + pollInterval) { input.yield(.poll) }
    }

    private func poll() async {
        for path in applied.keys.sorted() where modems[path]?.signalsLocation == false {
            await readLocation(path)
        }
        schedulePolling()
    }

    // MARK: Properties

    static func update(_ modem: inout ModemStatus, modem properties: [String: DBusValue]) {
        if let value = properties["Manufacturer"]?.string { modem.manufacturer = value }
        if let value = properties["Model"]?.string { modem.model = value }
        if let value = properties["State"]?.integer { modem.state = ModemState(rawValue: Int32(truncatingIfNeeded: value)) }
        if let value = properties["AccessTechnologies"]?.integer {
            modem.accessTechnologies = UInt32(truncatingIfNeeded: value)
        }
        if !modem.state.isUsable {
            modem.problem = "modem \(modem.state)\(modem.state == .locked ? " (SIM locked)" : "")"
        } else if modem.problem?.hasPrefix("modem ") == true {
            modem.problem = nil
        }
    }

    static func update(_ modem: inout ModemStatus, location properties: [String: DBusValue]) {
        if let value = properties["Capabilities"]?.integer {
            modem.capabilities = ModemLocationCapabilities(rawValue: UInt32(truncatingIfNeeded: value))
        }
        if let value = properties["Enabled"]?.integer {
            modem.enabled = ModemLocationCapabilities(rawValue: UInt32(truncatingIfNeeded: value))
        }
        if let value = properties["SignalsLocation"]?.bool { modem.signalsLocation = value }
    }
}

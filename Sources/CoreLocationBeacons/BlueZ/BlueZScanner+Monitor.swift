import CoreLocationDBus
import Logging
import Synchronization

/// Passive scanning through BlueZ's AdvertisementMonitor API (docs/decisions/0051): while scanning, the scanner
/// exports one `org.bluez.AdvertisementMonitor1` object (type `or_patterns`, one pattern per beacon frame) under
/// an ObjectManager root, and registers the root with the adapter's `org.bluez.AdvertisementMonitorManager1`.
extension BlueZScanner {
    static let monitorManagerInterface = "org.bluez.AdvertisementMonitorManager1"
    static let monitorInterface = "org.bluez.AdvertisementMonitor1"
    static let monitorRootPrefix = "/org/corelocation/beacons/scanner"
    static let scannerCount = Atomic<Int>(0)

    /// One `or_patterns` pattern: where in an AD structure of `type` the `content` starts.
    struct MonitorPattern: Sendable, Hashable {
        var start: UInt8
        var type: UInt8
        var content: [UInt8]

        var value: DBusValue {
            .structure([.byte(start), .byte(type), .array(elementSignature: "y", content.map { .byte($0) })])
        }
    }

    /// The beacon frames as AD patterns, matched on the raw AD data (a manufacturer-specific structure starts
    /// with its company ID, little-endian):
    static let monitorPatterns: [MonitorPattern] = [
        // iBeacon: manufacturer-specific data (0xFF) of Apple (0x004C), type 0x02, length 0x15.
        MonitorPattern(start: 0, type: 0xFF, content: [0x4C, 0x00, 0x02, 0x15]),
        // AltBeacon: manufacturer-specific data of any company, beacon code 0xBEAC after the company ID.
        MonitorPattern(start: 2, type: 0xFF, content: [0xBE, 0xAC]),
        // Eddystone-UID: 16-bit-UUID service data (0x16) of 0xFEAA, frame type 0x00.
        MonitorPattern(start: 0, type: 0x16, content: [0xAA, 0xFE, 0x00]),
    ]

    /// The exported objects: the root (ObjectManager) and one monitor below it. `RSSISamplingPeriod` 0 asks
    /// BlueZ to propagate every advertisement of a matched device (ranging averages them).
    static func monitorTree(root: String) -> DBusObjectTree {
        DBusObjectTree(
            root: root,
            objects: [
                root + "/beacons": [
                    monitorInterface: [
                        "Type": .string("or_patterns"),
                        "Patterns": .array(elementSignature: "(yyay)", monitorPatterns.map(\.value)),
                        "RSSISamplingPeriod": .uint16(0),
                    ]
                ]
            ])
    }

    /// Registers the monitor with `adapter` when the mode allows, the adapter offers `or_patterns` and BlueZ has
    /// not released it; true when BlueZ accepted it (passive scanning), false to discover instead.
    func startMonitor(
        on adapter: String, objects: [String: [String: [String: DBusValue]]], generation: Int
    ) async -> Bool {
        guard scanMode != .active else { return false }
        guard !state.withLock({ $0.monitorReleased }) else { return false }
        guard let manager = objects[adapter]?[Self.monitorManagerInterface] else {
            logger.info("BlueZ: \(adapter) offers no advertisement monitor (AdvertisementMonitorManager1)")
            return false
        }
        let types = manager["SupportedMonitorTypes"]?.elements?.compactMap(\.string) ?? []
        guard types.contains("or_patterns") else {
            logger.info("BlueZ: \(adapter)'s advertisement monitor has no or_patterns type (\(types))")
            return false
        }
        do {
            try exportMonitor(generation: generation)
        } catch {
            logger.warning("BlueZ: cannot export the advertisement monitor: \(error)")
            return false
        }
        let previous = state.withLock { $0.monitorAdapter }
        if let previous, previous != adapter { await unregisterMonitor(on: previous) }
        do {
            _ = try await client.call(
                destination: Self.service, path: adapter, interface: Self.monitorManagerInterface,
                member: "RegisterMonitor", arguments: [.objectPath(monitorRoot)], timeout: .seconds(5))
        } catch let error as DBusCallError where error.name == "org.bluez.Error.AlreadyExists" {
            // Still registered with this adapter (it was powered off and on again).
        } catch {
            logger.warning("BlueZ: RegisterMonitor on \(adapter) failed: \(error)")
            return false
        }
        let current = state.withLock { state -> Bool in
            guard state.generation == generation, !state.monitorReleased else { return false }
            state.monitorAdapter = adapter
            return true
        }
        guard current else {
            // Scanning ended (or BlueZ released the monitor) while BlueZ was answering.
            await unregisterMonitor(on: adapter)
            return false
        }
        logger.info("BlueZ: passive scanning on \(adapter) (advertisement monitor \(monitorRoot))")
        return true
    }

    /// Exports the monitor's objects once per set-up.
    private func exportMonitor(generation: Int) throws {
        try state.withLock { state in
            guard state.monitorExport == nil else { return }
            state.monitorExport = try client.export(Self.monitorTree(root: monitorRoot)) { [weak self] call in
                self?.monitorCalled(call, generation: generation) ?? .unknownMethod(call)
            }
        }
    }

    /// `UnregisterMonitor`, best effort (the adapter or bluetoothd may be gone).
    func unregisterMonitor(on adapter: String) async {
        do {
            _ = try await client.call(
                destination: Self.service, path: adapter, interface: Self.monitorManagerInterface,
                member: "UnregisterMonitor", arguments: [.objectPath(monitorRoot)], timeout: .seconds(5))
        } catch {
            logger.debug("BlueZ: UnregisterMonitor on \(adapter): \(error)")
        }
    }

    /// BlueZ's calls to the monitor (on the D-Bus loop thread: no waiting here).
    private func monitorCalled(_ call: DBusMethodCall, generation: Int) -> DBusMethodResult {
        guard call.interface == Self.monitorInterface || call.interface == nil else { return .unknownMethod(call) }
        switch call.member {
        case "Activate":
            logger.debug("BlueZ: the advertisement monitor is active")
        case "Release":
            // Registered: fall back now. Registering (BlueZ could not activate the monitor and released it
            // before answering RegisterMonitor): startMonitor sees the flag and discovers instead.
            let fallBack = state.withLock { state -> Bool in
                guard state.generation == generation, !state.monitorReleased else { return false }
                state.monitorReleased = true
                return state.monitorAdapter != nil
            }
            if fallBack { Task { await self.monitorReleased(generation: generation) } }
        case "DeviceFound":
            // Without RSSI thresholds bluetoothd calls DeviceFound at every matching advertisement, while it
            // reports the device's properties only when they change (RSSI by 8 dB or more): DeviceFound is
            // what says a still beacon is still there (decision 0051).
            if let path = call.arguments.first?.string { devicePresent(path) }
        case "DeviceLost":
            logger.trace("BlueZ: DeviceLost \(call.arguments.first?.string ?? "?")")
        default:
            return .unknownMethod(call)
        }
        return .empty
    }

    /// BlueZ released our monitor: unregister it and discover instead.
    private func monitorReleased(generation: Int) async {
        let adapter = state.withLock { state -> String? in
            defer {
                state.monitorAdapter = nil
                state.discoveringBesideMonitor = false
            }
            return state.monitorAdapter
        }
        guard let adapter, isCurrent(generation) else { return }
        logger.warning("BlueZ: the advertisement monitor on \(adapter) was released; discovering instead")
        await unregisterMonitor(on: adapter)
        await refresh(generation: generation)
    }
}

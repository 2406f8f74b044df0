import Foundation
import Synchronization

/// One advertisement as a scanner hears it: the sender's (possibly rotating) address, its manufacturer data
/// (company ID → the bytes after it), its service data (service UUID → bytes) and the received power.
public struct BeaconAdvertisement: Sendable, Hashable {
    public var address: String
    public var manufacturerData: [UInt16: [UInt8]]
    public var serviceData: [String: [UInt8]]
    /// dBm.
    public var rssi: Int

    public init(address: String, manufacturerData: [UInt16: [UInt8]], serviceData: [String: [UInt8]], rssi: Int) {
        self.address = address
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.rssi = rssi
    }

    /// The beacon frames it carries.
    public var frames: [BeaconFrame] {
        BeaconFrame.frames(manufacturerData: manufacturerData, serviceData: serviceData)
    }
}

/// What a scanner reports to its subscribers.
public enum BeaconScanEvent: Sendable, Hashable {
    case advertisement(BeaconAdvertisement)
    /// Whether scanning works now (a powered adapter, bluetoothd running).
    case availability(Bool)
}

/// A source of advertisements shared by every user in the process: scanning starts for the first subscriber
/// and stops after the last one cancels.
public protocol BeaconScanner: AnyObject, Sendable {
    /// Whether scanning can work now.
    var isAvailable: Bool { get }
    /// Asks whether scanning could work now (BlueZ: a powered adapter), without starting a scan. Blocks the
    /// calling thread for at most `timeout` (false then), and never waits for the cooperative pool, so it
    /// can answer Apple's synchronous class methods from any thread.
    func checkAvailability(timeout: Duration) -> Bool
    /// Delivers events to `handler` (on the scanner's thread; return quickly) until the subscription is cancelled.
    /// The subscriber wants every advertisement with its reading (ranging).
    func subscribe(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription
    /// The same; with `wantsEveryAdvertisement` false, hearing that a beacon is there is enough (region
    /// monitoring), which lets a scanner listen passively (BlueZ's advertisement monitor, decision 0051).
    func subscribe(
        wantsEveryAdvertisement: Bool, _ handler: @escaping @Sendable (BeaconScanEvent) -> Void
    ) -> BeaconScanSubscription
}

extension BeaconScanner {
    /// Scanners that hear every advertisement anyway (a replay) subscribe both kinds alike.
    public func subscribe(
        wantsEveryAdvertisement: Bool, _ handler: @escaping @Sendable (BeaconScanEvent) -> Void
    ) -> BeaconScanSubscription {
        subscribe(handler)
    }
}

/// A scanner subscription; `cancel()` (or releasing it) ends it.
public final class BeaconScanSubscription: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}

/// What a scanner does when its first subscriber arrives and after its last one leaves.
protocol ScanningLifecycle: AnyObject, Sendable {
    func beginScanning()
    func endScanning()
}

/// The subscriber list scanners share: `first` runs when the first subscriber arrives, `last` after the last
/// one leaves (outside the lock).
public final class BeaconSubscribers: Sendable {
    private struct State {
        var next = 0
        var handlers: [Int: @Sendable (BeaconScanEvent) -> Void] = [:]
    }

    private let state = Mutex(State())
    private let first: @Sendable () -> Void
    private let last: @Sendable () -> Void

    public init(first: @escaping @Sendable () -> Void, last: @escaping @Sendable () -> Void) {
        self.first = first
        self.last = last
    }

    /// The list kept in `slot`, made on first use with `owner`'s start and stop (held weakly, so the list
    /// does not keep its scanner alive). Scanners call it inside their own lock.
    static func stored(in slot: inout BeaconSubscribers?, for owner: some ScanningLifecycle) -> BeaconSubscribers {
        if let existing = slot { return existing }
        let created = BeaconSubscribers(
            first: { [weak owner] in owner?.beginScanning() },
            last: { [weak owner] in owner?.endScanning() })
        slot = created
        return created
    }

    public var count: Int { state.withLock { $0.handlers.count } }

    public func add(_ handler: @escaping @Sendable (BeaconScanEvent) -> Void) -> BeaconScanSubscription {
        let (id, isFirst) = state.withLock { state in
            state.next += 1
            state.handlers[state.next] = handler
            return (state.next, state.handlers.count == 1)
        }
        if isFirst { first() }
        return BeaconScanSubscription { [weak self] in self?.remove(id) }
    }

    private func remove(_ id: Int) {
        let isLast = state.withLock { state in
            state.handlers.removeValue(forKey: id) != nil && state.handlers.isEmpty
        }
        if isLast { last() }
    }

    /// Sends `event` to every subscriber, in subscription order.
    public func send(_ event: BeaconScanEvent) {
        let handlers = state.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(event) }
    }
}

import CoreLocationBeacons
import CoreLocationSources
import Dispatch
import Foundation
import Logging
import Synchronization

/// The process's beacon scanner, chosen by `CORELOCATION_BEACONS` (docs/decisions/0029):
///
/// - unset or `bluez`: BlueZ on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), passive or active scanning as
///   `CORELOCATION_BLUEZ_SCAN` says (`auto`, `passive`, `active`; docs/decisions/0051);
/// - `simulate:FILE`: a recorded-advertisement file (docs/beacons.md) replayed in a loop;
/// - `off`: no scanner — ranging reports `rangingUnavailable`, as on hardware without Bluetooth LE.
///
/// Every manager's ranging session shares this scanner, so BlueZ discovery runs once for the process.
package final class BeaconRuntime: Sendable {
    package let scanner: (any BeaconScanner)?
    package let scheduler: any Scheduler
    package let logger = Logger(label: "corelocation.beacons")

    package init(scanner: (any BeaconScanner)?, scheduler: any Scheduler) {
        self.scanner = scanner
        self.scheduler = scheduler
    }

    package convenience init(environment: [String: String]) {
        let scheduler = DispatchScheduler(queue: DispatchQueue(label: "corelocation.beacons"))
        let logger = Logger(label: "corelocation.beacons")
        let setting = environment["CORELOCATION_BEACONS"] ?? "bluez"
        var scanner: (any BeaconScanner)?
        if setting == "bluez" {
            do {
                scanner = try BlueZScanner(
                    scanMode: BlueZScanMode(environment: environment, logger: logger), logger: logger)
            } catch {
                logger.info("\(BlueZScanner.reason(connecting: error)); ranging is unavailable")
            }
        } else if setting.hasPrefix("simulate:") {
            let path = String(setting.dropFirst("simulate:".count))
            do {
                scanner = try ReplayBeaconScanner(
                    contentsOf: URL(fileURLWithPath: path), scheduler: scheduler, loops: true)
            } catch {
                logger.error("beacons: CORELOCATION_BEACONS=\(setting): \(error)")
            }
        } else if setting != "off" {
            logger.error("beacons: CORELOCATION_BEACONS=\(setting) is not bluez, simulate:FILE or off")
        }
        self.init(scanner: scanner, scheduler: scheduler)
    }

    /// Whether ranging can work now: a scanner in use says so; otherwise BlueZ is asked (bounded, 2 s). The
    /// answer comes on the D-Bus connection's thread, so asking from a task or the main thread never waits for
    /// the cooperative pool.
    package var isAvailable: Bool {
        scanner?.checkAvailability(timeout: .seconds(2)) ?? false
    }
}

import Foundation
import Synchronization

private let sharedBeaconRuntime = Mutex<BeaconRuntime?>(nil)

extension BeaconRuntime {
    /// The process's beacon scanner, made on first use from the environment (`CORELOCATION_BEACONS`) unless a
    /// program installed its own. Ranging is always in the app's process, whichever side runs the engine.
    package static var shared: BeaconRuntime {
        sharedBeaconRuntime.withLock { runtime in
            if let runtime { return runtime }
            let made = BeaconRuntime(environment: ProcessInfo.processInfo.environment)
            runtime = made
            return made
        }
    }

    /// Makes `runtime` the process's beacon scanner (`locationctl beacons --simulate FILE`); call it before the
    /// first beacon call.
    package static func installShared(_ runtime: BeaconRuntime) {
        sharedBeaconRuntime.withLock { $0 = runtime }
    }
}

import Foundation
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

private let sharedRuntime = Mutex<(any LocationRuntime)?>(nil)

/// The process's location system: what `CLLocationManager()` and the other façade objects use.
package enum SharedRuntime {
    /// Made on first use from the environment (see `makeDefault(environment:)`) unless a program installed
    /// its own with `install(_:)`.
    package static var current: any LocationRuntime {
        sharedRuntime.withLock { runtime in
            if let runtime { return runtime }
            let made = makeDefault()
            runtime = made
            return made
        }
    }

    /// Makes `runtime` the process's location system. For programs that choose their sources
    /// themselves (`locationctl --simulate`); call it before creating any `CLLocationManager`.
    package static func install(_ runtime: any LocationRuntime) {
        sharedRuntime.withLock { $0 = runtime }
    }

    /// A runtime configured from the environment:
    /// - `CORELOCATION_SIMULATE`: `run`, `bike`, `drive`, a GPX file, or `LAT,LON` — a simulated
    ///   source (with `CORELOCATION_SIMULATE_SPEED`, a multiple of recorded pace, and
    ///   `CORELOCATION_SIMULATE_NOISE`, a seed for the noise model);
    /// - `CORELOCATION_DATABASE`, `XDG_DATA_HOME`: where decisions are stored;
    /// - `CORELOCATION_DEFAULT_POLICY`: `prompt`, `deny`, `when-in-use` or `always`;
    /// - `CORELOCATION_INFO_PLIST`: the app's Info.plist;
    /// - `CORELOCATION_SOURCES_CONF`, `XDG_CONFIG_HOME`: the real sources (`sources.conf`).
    /// - `CORELOCATION_REGION_LIMIT`: regions the app may monitor (default 20, as Apple's).
    /// With nothing configured and no gpsd on localhost there is no source, and clients hear `kCLErrorLocationUnknown`.
    package static func makeDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger = Logger(label: "corelocation")
    ) -> any LocationRuntime {
        if let runtime = DaemonClient.connect(environment: environment, logger: logger) { return runtime }
        let scheduler = DispatchScheduler()
        let sources = Composition.environmentSources(environment: environment, scheduler: scheduler, logger: logger)
        if sources.isEmpty {
            logger.notice("No location source is configured; name one in sources.conf or set CORELOCATION_SIMULATE to simulate one.")
        }
        let composition = Composition(
            sources: sources, scheduler: scheduler, environment: environment,
            inertial: Composition.environmentInertialSource(
                environment: environment, scheduler: scheduler, logger: logger),
            logger: logger)
        return composition.engineHost(identity: .current(environment: environment))
    }
}

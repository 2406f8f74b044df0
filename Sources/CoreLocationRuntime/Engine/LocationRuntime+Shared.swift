import Foundation
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

private let sharedRuntime = Mutex<LocationRuntime?>(nil)

extension LocationRuntime {
    /// The process's location system, made on first use from the environment (see
    /// `makeDefault(environment:)`) unless a program installed its own with `installShared(_:)`.
    package static var shared: LocationRuntime {
        sharedRuntime.withLock { runtime in
            if let runtime { return runtime }
            let made = makeDefault()
            runtime = made
            return made
        }
    }

    /// Makes `runtime` the process's location system. For programs that choose their sources
    /// themselves (`locationctl --simulate`); call it before creating any `CLLocationManager`.
    package static func installShared(_ runtime: LocationRuntime) {
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
    ) -> LocationRuntime {
        if let runtime = daemonClient(environment: environment, logger: logger) { return runtime }
        let scheduler = DispatchScheduler()
        let sources = environmentSources(environment: environment, scheduler: scheduler, logger: logger)
        if sources.isEmpty {
            logger.notice("No location source is configured; name one in sources.conf or set CORELOCATION_SIMULATE to simulate one.")
        }
        return make(sources: sources, scheduler: scheduler, identity: .current(environment: environment), environment: environment, logger: logger)
    }

    /// The sources the environment configures: `CORELOCATION_SIMULATE…` if set, else the sources
    /// `sources.conf` names (see `SourcesConfigFile`), else gpsd on localhost if it answers; empty when none.
    package static func environmentSources(
        environment: [String: String], scheduler: any Scheduler, logger: Logger
    ) -> [any LocationSource] {
        guard let scenarioText = environment["CORELOCATION_SIMULATE"], !scenarioText.isEmpty else {
            do {
                let selection = try SourceSelection.resolve(environment: environment)
                return selection.makeSources(scheduler: scheduler, logger: logger)
            } catch {
                logger.error("The location sources configuration is not usable", metadata: ["error": "\(error)"])
                return []
            }
        }
        do {
            let scenario = try SimulationScenario.parse(scenarioText)
            let speed = environment["CORELOCATION_SIMULATE_SPEED"].flatMap(Double.init) ?? 1
            let noise = environment["CORELOCATION_SIMULATE_NOISE"].flatMap(UInt64.init).map { NoiseModel(seed: $0) }
            return [try SimulatedLocationSource(scenario: scenario, speed: speed, noise: noise, scheduler: scheduler)]
        } catch {
            logger.error("CORELOCATION_SIMULATE is not usable", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// A runtime over the given sources, with the stored decisions and the terminal prompt.
    package static func make(
        sources: [any LocationSource],
        scheduler: any Scheduler,
        identity: AppIdentity,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configuration: LocationEngine.Configuration = .init(),
        persistsRegions: Bool = true,
        logger: Logger = Logger(label: "corelocation")
    ) -> LocationRuntime {
        let store: AuthorizationStore?
        do {
            store = try AuthorizationStore(path: AuthorizationStore.defaultPath(environment: environment), logger: logger)
        } catch {
            logger.error("Cannot open the authorization database; decisions last for this run only", metadata: ["error": "\(error)"])
            store = nil
        }
        let authorization = AuthorizationService(
            identity: identity,
            store: store,
            prompter: TerminalPrompter.isAvailable(environment: environment) ? TerminalPrompter() : nil,
            environmentPolicy: environment["CORELOCATION_DEFAULT_POLICY"].flatMap(DefaultPolicy.init(rawValue:)),
            sourcesAreSimulated: !sources.isEmpty && sources.allSatisfy(\.descriptor.isSimulated),
            logger: logger
        )
        var configuration = configuration
        if let limit = environment["CORELOCATION_REGION_LIMIT"].flatMap(Int.init), limit > 0 {
            configuration.regionLimit = limit
        }
        // Floors (decision 0033): the venue a barometer's URL names.
        if configuration.venue == nil { configuration.venue = IIOBarometerSource.venue(in: sources) }
        return LocationRuntime(
            sources: sources, scheduler: scheduler, authorization: authorization, configuration: configuration,
            regionStore: persistsRegions ? store.map { RegionStore(database: $0.database) } : nil, logger: logger
        )
    }
}

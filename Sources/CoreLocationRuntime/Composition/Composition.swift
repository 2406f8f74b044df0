import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging

/// The one composition root: what every program that runs an engine builds the same way — the sources, the
/// database, the engine's configuration and the authorization service — for an app (`SharedRuntime`),
/// `locationctl` and `locationd` (docs/decisions/0066). Each program says what differs (its command line);
/// the rules that must not differ (the region limit, the barometer's venue, the default policy, what counts as
/// simulated) are applied here, once.
package struct Composition: Sendable {
    package var environment: [String: String]
    package var scheduler: any Scheduler
    package var sources: [any LocationSource]
    package var configuration: LocationEngine.Configuration
    package var logger: Logger

    /// A composition over `sources`; `configuration` is completed by `configured(_:sources:environment:)`.
    /// `inertial`: an IMU for fused positions (decision 0095, Wiring), added as one more source (kind `inertial`)
    /// when there is a position source to fuse with; the engine powers it only while it powers a GNSS-class source,
    /// and locationd shares it between apps like every source. Programs pass `environmentInertialSource(…)`.
    package init(
        sources: [any LocationSource], scheduler: any Scheduler, configuration: LocationEngine.Configuration = .init(),
        regionLimit: Int? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        inertial: (any InertialSource)? = nil, logger: Logger = Logger(label: "corelocation")
    ) {
        var sources = sources
        if let inertial, sources.contains(where: { !$0.descriptor.isBarometer && !$0.descriptor.isInertial }) {
            sources.append(InertialLocationSource(inertial))
        }
        self.environment = environment
        self.scheduler = scheduler
        self.sources = sources
        self.logger = logger
        self.configuration = Self.configured(
            configuration, sources: sources, regionLimit: regionLimit, environment: environment)
    }

    // MARK: The shared rules

    /// The engine's configuration as every program completes it: the region limit (`regionLimit`, else
    /// `CORELOCATION_REGION_LIMIT`; Apple's 20 without either) and the floors' venue a barometer's URL names
    /// (decision 0033).
    package static func configured(
        _ base: LocationEngine.Configuration, sources: [any LocationSource], regionLimit: Int? = nil,
        environment: [String: String]
    ) -> LocationEngine.Configuration {
        var configuration = base
        if let limit = regionLimit ?? environment["CORELOCATION_REGION_LIMIT"].flatMap(Int.init), limit > 0 {
            configuration.regionLimit = limit
        }
        if configuration.venue == nil { configuration.venue = IIOBarometerSource.venue(in: sources) }
        return configuration
    }

    /// `CORELOCATION_DEFAULT_POLICY`: the policy for apps nobody was asked about, over the stored one.
    package static func defaultPolicy(environment: [String: String]) -> DefaultPolicy? {
        environment["CORELOCATION_DEFAULT_POLICY"].flatMap(DefaultPolicy.init(rawValue:))
    }

    /// Every source is simulated: simulated positions reveal nothing about the user, so the built-in policy
    /// allows once (decision 0003).
    package static func areSimulated(_ sources: [any LocationSource]) -> Bool {
        !sources.isEmpty && sources.allSatisfy(\.descriptor.isSimulated)
    }

    package var sourcesAreSimulated: Bool { Self.areSimulated(sources) }

    /// Opens the decisions' database at `path`; nil (logged) when it cannot be, so decisions last for this run
    /// only and nothing is silently lost. `writeAheadLog`: for a database several processes write (locationd's).
    package static func openStore(path: String, writeAheadLog: Bool = false, logger: Logger) -> AuthorizationStore? {
        do {
            let store = try AuthorizationStore(path: path, logger: logger)
            if let recovered = store.recoveredFrom {
                logger.warning("The database was unusable and was moved aside", metadata: ["movedTo": "\(recovered)"])
            }
            if writeAheadLog {
                do { try store.database.enableWriteAheadLog() } catch {
                    logger.warning("Cannot switch the database to WAL", metadata: ["error": "\(error)"])
                }
            }
            return store
        } catch {
            logger.error(
                "Cannot open the database; decisions last for this run only",
                metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    // MARK: Sources

    /// The sources the environment configures: `CORELOCATION_SIMULATE…` if set, else the sources
    /// `sources.conf` names (see `SourcesConfigFile`), else gpsd on localhost if it answers; empty when none.
    package static func environmentSources(
        environment: [String: String], scheduler: any Scheduler, logger: Logger
    ) -> [any LocationSource] {
        guard let scenarioText = environment["CORELOCATION_SIMULATE"], !scenarioText.isEmpty else {
            do {
                let selection = try SourceSelection.resolve(environment: environment)
                return selection.makeSources(environment: environment, scheduler: scheduler, logger: logger)
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

    /// The IMU the environment offers for fused positions, or nil: the one hook every program's composition asks
    /// (an app's `SharedRuntime`, `locationctl` with live sources, `locationd`).
    ///
    /// The first IIO accelerometer + gyroscope under `CORELOCATION_SYSFS_ROOT` (else /sys), its buffer node under
    /// `CORELOCATION_DEV_ROOT` (else /dev), at 100 Hz (decision 0096); nil without one. With an IIO magnetometer
    /// under the same root its headings go with the samples into the filter (`CompassedInertialSource`, decision
    /// 0095, Compass), unless `CORELOCATION_IMU_COMPASS=0` says the magnetometer does not turn with the IMU.
    package static func environmentInertialSource(
        environment: [String: String], scheduler: any Scheduler, logger: Logger
    ) -> (any InertialSource)? {
        guard let imu = IIOInertialSource.discover(environment: environment, scheduler: scheduler, logger: logger)
        else { return nil }
        guard environment["CORELOCATION_IMU_COMPASS"] != "0",
            let compass = IIOHeadingSource.discover(
                sysfsRoot: BarometerSpec.sysfsRoot(environment: environment), scheduler: scheduler,
                store: MagnetometerCalibrationStore(
                    directory: MagnetometerCalibrationStore.defaultDirectory(environment: environment)))
        else { return imu }
        return CompassedInertialSource(imu, compass: compass, scheduler: scheduler)
    }

    // MARK: Runtimes

    /// The engine in this process for the app `identity`: its decisions in the per-user database, asked on the
    /// terminal when there is one. `persistsRegions`: false keeps the app's regions for this run only.
    package func engineHost(identity: AppIdentity, persistsRegions: Bool = true) -> EngineHost {
        let store = Self.openStore(path: AuthorizationStore.defaultPath(environment: environment), logger: logger)
        let authorization = AuthorizationService(
            identity: identity, store: store,
            prompter: TerminalPrompter.isAvailable(environment: environment) ? TerminalPrompter() : nil,
            environmentPolicy: Self.defaultPolicy(environment: environment), sourcesAreSimulated: sourcesAreSimulated,
            logger: logger)
        return engineHost(authorization: authorization, regionStore: persistsRegions ? store.map { RegionStore(database: $0.database) } : nil)
    }

    /// The engine in this process with the authorization service given (locationd's, one per app, over its
    /// shared sources).
    package func engineHost(authorization: AuthorizationService, regionStore: RegionStore?) -> EngineHost {
        EngineHost(
            sources: sources, scheduler: scheduler, authorization: authorization, configuration: configuration,
            regionStore: regionStore, logger: logger)
    }
}

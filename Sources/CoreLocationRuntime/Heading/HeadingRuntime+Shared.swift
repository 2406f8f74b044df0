import Foundation
import CoreLocationEngine
import CoreLocationSources
import Logging
import Synchronization

private let sharedHeadingRuntime = Mutex<HeadingRuntime?>(nil)

extension HeadingRuntime {
    /// The process's heading system, made on first use from the environment
    /// (`makeDefault(environment:)`) unless a program installed its own.
    package static var shared: HeadingRuntime {
        sharedHeadingRuntime.withLock { runtime in
            if let runtime { return runtime }
            let made = makeDefault()
            runtime = made
            return made
        }
    }

    package static func installShared(_ runtime: HeadingRuntime) {
        sharedHeadingRuntime.withLock { $0 = runtime }
    }

    /// A heading runtime configured from the environment:
    /// - `CORELOCATION_HEADING_SIMULATE`: a rotation rate in degrees per second (e.g. `10`, or `0` for a
    ///   device lying still) — a simulated device turning flat on a table;
    /// - otherwise the first IIO magnetometer under `CORELOCATION_SYSFS_ROOT` (default `/sys`), with the
    ///   first IIO accelerometer for tilt compensation, calibrations kept under `XDG_DATA_HOME`.
    /// With neither there is no heading source: `headingAvailable()` is false.
    /// `CORELOCATION_HEADING_SOURCE` (a GNSS compass: `gpsd://host:port`, `nmea:/path`, `serial:/dev/…`,
    /// `tcp://host:port`; see `GNSSHeadingConfiguration`) comes before both; an invalid one is logged and ignored.
    package static func makeDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger = Logger(label: "corelocation.heading")
    ) -> HeadingRuntime {
        let scheduler = DispatchScheduler()
        if let text = environment[GNSSHeadingConfiguration.environmentKey], !text.isEmpty {
            do {
                let source = try GNSSHeadingConfiguration.source(from: text, scheduler: scheduler)
                return HeadingRuntime(source: source, scheduler: scheduler, logger: logger)
            } catch {
                logger.error("Ignoring invalid CORELOCATION_HEADING_SOURCE", metadata: ["error": "\(error)"])
            }
        }
        if let text = environment["CORELOCATION_HEADING_SIMULATE"], !text.isEmpty {
            let rate = Double(text) ?? 10
            return HeadingRuntime(
                source: SimulatedHeadingSource(rate: rate, scheduler: scheduler), scheduler: scheduler,
                logger: logger)
        }
        let root = environment["CORELOCATION_SYSFS_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/sys"
        let store = MagnetometerCalibrationStore(
            directory: MagnetometerCalibrationStore.defaultDirectory(environment: environment))
        let source = IIOHeadingSource.discover(sysfsRoot: root, scheduler: scheduler, store: store)
        return HeadingRuntime(source: source, scheduler: scheduler, logger: logger)
    }
}

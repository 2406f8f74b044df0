import ArgumentParser
import CoreLocation
import Foundation
import CoreLocationEngine
import CoreLocationSources
import Logging

/// Where locations come from, shared by the commands that need a source.
struct SourceOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Simulate a source: a built-in route (\(BuiltInRoute.names.joined(separator: ", "))), a GPX file, or LAT,LON.",
            valueName: "route|file|lat,lon"
        )
    )
    var simulate: String?

    @Option(
        name: .customLong("source"),
        help: ArgumentHelp(
            """
            A real source, repeatable: gpsd://host:port, nmea:/path/file.nmea, serial:/dev/ttyUSB0?baud=9600, \
            tcp://host:port or stdin. Default: sources.conf, else gpsd on localhost.
            """,
            valueName: "url"
        )
    )
    var sources: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Replay speed as a multiple of the recorded pace, or 'max' (default 1): --simulate and nmea: files.",
            valueName: "x"
        )
    )
    var speed: ReplaySpeed?

    /// The replay speed: `--speed`, else the recorded pace.
    var speedValue: Double { speed?.value ?? 1 }

    @Option(help: ArgumentHelp("Add realistic GNSS noise to simulated fixes, with this seed.", valueName: "seed"))
    var noise: UInt64?

    func validate() throws {
        for text in sources {
            let spec: SourceSpec
            do {
                spec = try SourceSpec.parse(text)
            } catch {
                throw ValidationError("--source \(error)")
            }
            if case .nmea(.file(let path, _)) = spec, let problem = FileProblem.check(path) {
                throw ValidationError("--source \(text): \(problem.message)")
            }
        }
        if speed != nil, simulate == nil, !sources.isEmpty,
            !sources.contains(where: { if case .nmea(.file)? = try? SourceSpec.parse($0) { true } else { false } })
        {
            throw ValidationError("--speed applies to replays (--simulate, nmea: files), not to live sources")
        }
        if simulate != nil && !sources.isEmpty {
            throw ValidationError("--simulate and --source exclude each other.")
        }
        if let simulate {
            do {
                _ = try SimulationScenario.parse(simulate)
            } catch {
                throw ValidationError("--simulate \(simulate): \(error)")
            }
        }
    }

    /// Builds this process's location system and installs it for `CLLocationManager`.
    ///
    /// A replay at a finite `--speed` runs the engine's automatic-pause times that much faster, so
    /// a replay at 20× pauses after the recording's minutes of standing still. `monitoring` also
    /// divides the monitoring rules' times by the speed and keeps regions in memory only.
    /// `throughDaemon`: with no source named, use locationd when it answers (locate and track).
    func installRuntime(monitoring: Bool = false, throughDaemon: Bool = false) throws -> LocationRuntime {
        let scheduler = DispatchScheduler()
        let logger = Logger(label: "locationctl")
        var sources: [any LocationSource] = []
        if let simulate {
            let scenario = try SimulationScenario.parse(simulate)
            sources.append(
                try SimulatedLocationSource(
                    scenario: scenario, speed: speedValue, noise: noise.map { NoiseModel(seed: $0) }, scheduler: scheduler
                )
            )
        } else if !self.sources.isEmpty {
            // A source named on the command line that cannot be made is an error, not a silent skip.
            sources = try self.sources.map {
                try SourceFactory.makeSource(applyingSpeed(try SourceSpec.parse($0)), scheduler: scheduler, logger: logger)
            }
        } else if throughDaemon,
            let daemon = LocationRuntime.daemonClient(
                environment: ProcessInfo.processInfo.environment, identity: .locationctl, logger: logger)
        {
            // No source named: locationd's, when it answers (CORELOCATION_DAEMON=auto|require).
            LocationRuntime.installShared(daemon)
            return daemon
        } else {
            sources = LocationRuntime.environmentSources(
                environment: ProcessInfo.processInfo.environment, scheduler: scheduler, logger: logger
            )
        }
        var configuration = LocationEngine.Configuration()
        let factor = simulate == nil ? 1 : speedValue
        if factor.isFinite { configuration.pauseTimeScale = factor }
        if monitoring {
            configuration.regionDwell /= factor
            configuration.significantInterval /= factor
            // Quiet monitoring looks only now and then; at --speed max a receiver switched off
            // would miss the rest of the recording, so there it keeps watching (interval 0).
            configuration.monitoringQuietAfter /= factor
            configuration.monitoringProbeInterval /= factor
        }
        let runtime = LocationRuntime.make(
            sources: sources, scheduler: scheduler, identity: .locationctl, configuration: configuration,
            persistsRegions: !monitoring, logger: logger
        )
        LocationRuntime.installShared(runtime)
        return runtime
    }
}

extension SourceOptions {
    /// `--speed` applied to an NMEA file replay: it replaces the URL's pace (`?speed=N`, `?pace=…`);
    /// `max` replays as fast as possible. Other sources are unchanged.
    func applyingSpeed(_ spec: SourceSpec) -> SourceSpec {
        guard let speed, case .nmea(.file(let path, _)) = spec else { return spec }
        return .nmea(.file(path: path, pace: speed.value.isFinite ? .recorded(speed: speed.value) : .asFastAsPossible))
    }

    /// Exits 65 (EX_DATAERR) naming each NMEA file replay that held no NMEA sentence at all.
    static func failIfNoNMEA(in runtime: LocationRuntime) throws {
        let empty = emptyNMEAFiles(in: runtime)
        guard !empty.isEmpty else { return }
        for path in empty { printError("no NMEA sentence found in \(path)") }
        throw ExitCodes.dataError
    }

    /// The NMEA file replays among `runtime`'s sources that ended without one NMEA sentence.
    static func emptyNMEAFiles(in runtime: LocationRuntime) -> [String] {
        runtime.sources.values.compactMap { source in
            guard let nmea = source as? NMEAStreamSource, nmea.foundNoSentence, case .file(let path, _) = nmea.input
            else { return nil }
            return path
        }.sorted()
    }
}

struct ReplaySpeed: ExpressibleByArgument {
    var value: Double

    init(value: Double) { self.value = value }

    init?(argument: String) {
        if argument == "max" {
            value = .infinity
        } else if let number = Double(argument), number > 0, number.isFinite {
            value = number
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { value.isInfinite ? "max" : String(format: "%g", value) }
}

/// The accuracy a command asks for.
enum AccuracyChoice: String, ExpressibleByArgument, CaseIterable {
    case best, navigation, tenMeters = "10m", hundredMeters = "100m", kilometer = "1km", threeKilometers = "3km", reduced

    var desiredAccuracy: CLLocationAccuracy {
        switch self {
        case .best: kCLLocationAccuracyBest
        case .navigation: kCLLocationAccuracyBestForNavigation
        case .tenMeters: kCLLocationAccuracyNearestTenMeters
        case .hundredMeters: kCLLocationAccuracyHundredMeters
        case .kilometer: kCLLocationAccuracyKilometer
        case .threeKilometers: kCLLocationAccuracyThreeKilometers
        case .reduced: kCLLocationAccuracyReduced
        }
    }
}

import ArgumentParser
import CoreLocationCellular
import CoreLocationNetwork
import CoreLocation
import CoreLocationRuntime
import Foundation
import CoreLocationEngine
import CoreLocationSources
import Logging
import Synchronization

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
            tcp://host:port, stdin, ip: (ip:/path/db.mmdb?address=A), wifi:, modem:. Default: sources.conf, else \
            gpsd on localhost.
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

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            Fixes per second of a --simulate route, interpolated between its points and marked simulated, \
            or 'recorded' for its recorded points. Default: 1 for built-in routes (their recordings have a \
            point every 10-15 s), the recorded points for GPX files and at --speed max.
            """,
            valueName: "hz|recorded"
        )
    )
    var rate: ReplayRate?

    @Option(help: ArgumentHelp("Add realistic GNSS noise to simulated fixes, with this seed.", valueName: "seed"))
    var noise: UInt64?

    @Option(
        name: .customLong("imu"),
        help: ArgumentHelp(
            """
            Replay the drive's IMU recording (.imu.csv, docs/imu-recording-format.md) beside a --simulate route or \
            nmea: file replay: fixes are fused with it and dead-reckoned through GNSS outages (decision 0095).
            """,
            valueName: "file"))
    var imu: String?

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
        if rate != nil, simulate == nil {
            throw ValidationError("--rate applies to --simulate routes")
        }
        if let imu { try validateIMU(imu) }
        if simulate != nil && !sources.isEmpty {
            throw ValidationError("--simulate and --source exclude each other.")
        }
        if let simulate {
            do {
                _ = try Self.scenario(simulate)
            } catch let error as SimulationError
                where (error.underlying as? GPXError)?.code == .unsupportedEncoding
            {
                // The file's bytes, not the command line, are the problem: EX_DATAERR (decision 0021).
                printError("Error: --simulate \(simulate): \(error)")
                throw ExitCodes.dataError
            } catch {
                throw ValidationError("--simulate \(simulate): \(error)")
            }
        }
    }

    /// `--simulate`'s scenario, made once a process. A GPX file's scenario comes from a pass over the
    /// whole file (`GPXRouteFile.scan`: every `GPXError` before anything plays); `validate()`,
    /// `installRuntime` and `heading` all need it, and the file was read once for each (three passes
    /// with the replay's own, decision 0036; now two).
    static func scenario(_ text: String) throws -> SimulationScenario {
        if let known = scenarios.withLock({ $0[text] }) { return known }
        let scenario = try SimulationScenario.parse(text, streamingFiles: true)
        scenarios.withLock { $0[text] = scenario }
        return scenario
    }

    private static let scenarios = Mutex<[String: SimulationScenario]>([:])

    /// Builds this process's location system and installs it for `CLLocationManager`.
    ///
    /// A replay (a `--simulate` route, or NMEA files only) runs on the recording's timeline
    /// (`ReplayScheduler`, decision 0020): the engine, the sources and their timers all follow the
    /// recording's clock, passed at `--speed` times its pace (`max`: as fast as the output is
    /// consumed), so every speed gives the same events, stamped with the recording's times.
    /// `monitoring` keeps regions in memory only and, in a replay, the receiver on throughout (a
    /// recording has every fix; quiet monitoring would only drop some).
    /// `throughDaemon`: with no source named, use locationd when it answers (locate and track).
    /// `identity`: the app this process is, to the engine here and to the daemon (which decides from the
    /// process itself; decision 0045).
    func installRuntime(
        monitoring: Bool = false, throughDaemon: Bool = false, identity: AppIdentity = .locationctl
    ) throws -> CommandRuntime {
        let logger = Logger(label: "locationctl")
        let environment = ProcessInfo.processInfo.environment
        let scenario = try simulate.map { try Self.scenario($0) }
        let timeline = try replayTimeline(scenario)
        let scheduler: any Scheduler = timeline ?? DispatchScheduler()
        var sources: [any LocationSource] = []
        if let scenario {
            sources.append(
                try SimulatedLocationSource(
                    scenario: scenario, speed: timeline == nil ? speedValue : 1, noise: noise.map { NoiseModel(seed: $0) },
                    rate: effectiveRate(scenario), recordedTimes: timeline != nil, scheduler: scheduler
                )
            )
        } else if !self.sources.isEmpty {
            // A source named on the command line that cannot be made is an error, not a silent skip.
            for text in self.sources {
                var spec = try SourceSpec.parse(text)
                if timeline != nil, case .nmea(.file(let path, _)) = spec { spec = .nmea(.file(path: path, pace: .realTime)) }
                sources += try SourceFactory.makeSources(spec, scheduler: scheduler, logger: logger)
            }
        } else if throughDaemon, let daemon = DaemonClient.connect(environment: environment, identity: identity, logger: logger) {
            // No source named: locationd's, when it answers (CORELOCATION_DAEMON=auto|require).
            SharedRuntime.install(daemon)
            return CommandRuntime(runtime: daemon, sources: [], isThroughDaemon: true)
        } else {
            sources = Composition.environmentSources(environment: environment, scheduler: scheduler, logger: logger)
            // IP (when a database is installed) and Wi-Fi (when turned on): kilometre answers without a receiver,
            // unless sources.conf names its own ip:/wifi: sources.
            if !sources.contains(where: { ["ip", "wifi"].contains($0.descriptor.kind) }) {
                sources += NetworkSources.make(environment: environment, scheduler: scheduler, logger: logger)
            }
        }
        if let imu, let timeline {
            // On the recording's timeline beside the GNSS replay (ReplayedInertialSource: t − the timeline's origin).
            let replay = try ReplayedInertialSource(path: imu, scheduler: timeline)
            sources.append(InertialLocationSource(replay))
        }
        var configuration = LocationEngine.Configuration()
        if monitoring, timeline != nil { configuration.monitoringProbeInterval = 0 }
        // Live sources: the environment's IMU, if any, fuses them; a replay has only its own (--imu).
        let composition = Composition(
            sources: sources, scheduler: scheduler, configuration: configuration, environment: environment,
            inertial: timeline == nil
                ? Composition.environmentInertialSource(environment: environment, scheduler: scheduler, logger: logger)
                : nil,
            logger: logger)
        let runtime = composition.engineHost(identity: identity, persistsRegions: !monitoring)
        timeline?.attach(runtime.flow)
        SharedRuntime.install(runtime)
        return CommandRuntime(runtime: runtime, sources: composition.sources, isThroughDaemon: false)
    }

    /// The recording's timeline for a replay: a `--simulate` route, or sources that are all NMEA
    /// files (at `--speed`, else the first file's pace). Nil for live sources and fixed places.
    func replayTimeline(_ scenario: SimulationScenario?) throws -> ReplayScheduler? {
        switch scenario {
        case .route(let route): return ReplayScheduler(speed: speedValue, wallOrigin: route.recordedStart ?? Date())
        case .gpxFile(let file): return ReplayScheduler(speed: speedValue, wallOrigin: file.recordedStart ?? Date())
        case .fixed: return nil
        case nil: break
        }
        let specs = try sources.map { try SourceSpec.parse($0) }
        var paces: [NMEAInput.ReplayPace] = []
        for spec in specs {
            guard case .nmea(.file(_, let pace)) = spec else { return nil }
            paces.append(pace)
        }
        guard let first = paces.first else { return nil }
        let speed: Double
        if let value = self.speed?.value {
            speed = value
        } else if case .recorded(let value) = first {
            speed = value
        } else {
            speed = .infinity
        }
        // With an IMU recording, the timeline stands for the NMEA log's own times, which the IMU's are on.
        let origin = imu == nil ? nil : specs.lazy.compactMap { spec -> Date? in
            guard case .nmea(.file(let path, _)) = spec else { return nil }
            return NMEAStreamSource.recordedStart(path: path)
        }.first
        return ReplayScheduler(speed: speed, wallOrigin: origin ?? Date())
    }

    /// `--imu`: beside a replay only (its samples are placed on the replay's timeline), and a readable recording
    /// (a malformed one exits 65, EX_DATAERR, naming its line: decision 0021).
    private func validateIMU(_ path: String) throws {
        let replaysNMEAFiles = !sources.isEmpty && sources.allSatisfy {
            if case .nmea(.file)? = try? SourceSpec.parse($0) { true } else { false }
        }
        var replaysRoute = false
        if let simulate, let scenario = try? Self.scenario(simulate) {
            if case .fixed = scenario {} else { replaysRoute = true }
        }
        guard replaysRoute || replaysNMEAFiles else {
            throw ValidationError("--imu replays beside a replay: --simulate ROUTE|FILE.gpx, or nmea: files only")
        }
        if let problem = FileProblem.check(path) { throw ValidationError("--imu \(path): \(problem.message)") }
        do {
            _ = try InertialRecording.decode(try String(contentsOfFile: path, encoding: .utf8))
        } catch let error as InertialRecording.DecodingError {
            printError("Error: --imu \(path): line \(error.line): \(error.message)")
            throw ExitCodes.dataError
        } catch {
            throw ValidationError("--imu \(path): \(error)")
        }
    }

    /// `--rate`, else 1 Hz for a built-in route at a finite speed, else the recorded points.
    func effectiveRate(_ scenario: SimulationScenario) -> Double? {
        if let rate { return rate.hertz }
        guard case .route = scenario, let simulate, BuiltInRoute.named(simulate.trimmingCharacters(in: .whitespaces)) != nil,
            speedValue.isFinite
        else { return nil }
        return 1
    }
}

/// What a command runs on: the runtime (the one interface), and the sources this process built when the
/// engine is its own (none through locationd, whose sources are the daemon's).
struct CommandRuntime: Sendable {
    let runtime: any LocationRuntime
    let sources: [any LocationSource]
    let isThroughDaemon: Bool

    /// Whether a location can come at all: a source here, or locationd's.
    var canLocate: Bool { isThroughDaemon || !sources.isEmpty }

    /// The kind of the source `id` this process made (`gpsd`, `nmea`…).
    func kind(of id: SourceID) -> String? { sources.first { $0.descriptor.id == id }?.descriptor.kind }

    /// Exits 65 (EX_DATAERR) naming each NMEA file replay that held no NMEA sentence at all.
    func failIfNoNMEA() throws {
        let empty = emptyNMEAFiles
        guard !empty.isEmpty else { return }
        for path in empty { printError("no NMEA sentence found in \(path)") }
        throw ExitCodes.dataError
    }

    /// The NMEA file replays among the sources that ended without one NMEA sentence.
    var emptyNMEAFiles: [String] {
        sources.compactMap { source in
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

/// `--rate`: fixes per second, or `recorded`.
struct ReplayRate: ExpressibleByArgument {
    /// Nil for the recorded points.
    var hertz: Double?

    init?(argument: String) {
        if argument == "recorded" {
            hertz = nil
        } else if let number = Double(argument), number > 0, number.isFinite, number <= 1000 {
            hertz = number
        } else {
            return nil
        }
    }
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

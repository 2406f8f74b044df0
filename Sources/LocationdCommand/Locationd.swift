import ArgumentParser
import CoreLocationRuntime
import CoreLocationCellular
import CoreLocationDaemonProtocol
import CoreLocationDBus
import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

extension Launcher: ExpressibleByArgument {}

/// The daemon's entry point, for the programs that run it: the `locationd` executable and the multi-call binary
/// (`corelocation`, installed as `locationd` and `locationctl`: docs/decisions/0101). No `@main` here: two `@main`
/// async commands linked into one program give one weak async entry symbol twice, and the linker keeps either.
public enum LocationdProgram {
    /// Runs the daemon with `arguments` (argv without the program name) and returns when it has shut down; exits
    /// the process on a usage or configuration error, as `AsyncParsableCommand.main()` does.
    public static func main(arguments: [String]) async {
        await Locationd.main(commandLine: arguments)
    }
}

struct Locationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locationd",
        abstract: "Core Location as a system service: one engine and one set of receivers for every app.",
        discussion: """
            Apps that `import CoreLocation` use the daemon when its socket answers \
            (CORELOCATION_DAEMON=auto, the default). Protocol: docs/locationd-protocol.md.

            Examples:
              locationd --simulate drive
              locationd --source gpsd://localhost:2947
              locationd --socket /tmp/l.sock --database /tmp/l.sqlite --simulate 48.8584,2.2945
            """
    )

    @Option(
        help: """
            The configuration file (default /etc/corelocation/locationd.conf for root, else \
            $XDG_CONFIG_HOME/corelocation/locationd.conf); options given here win over it.
            """)
    var config: String?

    @Option(help: "The socket (default $XDG_RUNTIME_DIR/corelocation/locationd.sock, root: /run/corelocation/locationd.sock).")
    var socket: String?

    @Option(help: "The daemon's database (default $XDG_STATE_HOME/corelocation/locationd.sqlite, root: /var/lib/corelocation/locationd.sqlite).")
    var database: String?

    @Option(help: "Simulate a source: run, bike, drive, a GPX file, or LAT,LON.")
    var simulate: String?

    @Option(name: .customLong("simulate-speed"), help: "Speed of the simulation as a multiple of the recorded pace.")
    var simulateSpeed: Double = 1

    @Option(
        name: .customLong("source"),
        help: "A source URL as in sources.conf (gpsd://host:port, nmea:///dev/ttyUSB0, ip:, wifi:, modem:…); repeatable.")
    var sources: [String] = []

    @Option(
        name: .customLong("gpsd-listen"),
        help: """
            Speak gpsd's JSON protocol to gpsd's clients on ADDRESS (localhost: 127.0.0.1 and ::1 on gpsd's \
            port 2947; localhost:2948, 127.0.0.1:2947, [::1]:2947, unix:/PATH), \
            authorized as apps; repeatable; off by default.
            """)
    var gpsdListen: [String] = []

    @Option(name: .customLong("region-limit"), help: "Regions each app may monitor.")
    var regionLimit: Int?

    @Option(
        name: .customLong("region-dwell"),
        help: """
            Seconds a region crossing must be supported before it is reported, with the dwell rule of \
            decision 0007 instead of the evidence rule (tests and demonstrations of quick crossings).
            """)
    var regionDwell: Double?

    @Option(
        name: .customLong("significant-change"),
        help: """
            METRES,SECONDS: the significant-change service's rule (default 500,300: a change is 500 m \
            and 5 minutes from the last); smaller values for tests and demonstrations.
            """)
    var significantChange: String?

    @Option(
        name: .customLong("visit-stay"),
        help: """
            SECONDS,SECONDS: how long a stay must last to be a visit and how long the user must be \
            away to end it (default 300,60); smaller values for tests and demonstrations.
            """)
    var visitStay: String?

    @Option(
        name: .customLong("monitoring-probe-interval"),
        help: """
            Seconds between two looks of quiet monitoring (regions, significant changes and visits \
            while the device stands still or is settled in a visit; default 60); 0 watches without a break.
            """)
    var monitoringProbeInterval: Double?

    @Option(name: .customLong("hello-timeout"), help: "Seconds a new connection has to say hello.")
    var helloTimeout: Double = 5

    @Option(name: .customLong("write-timeout"), help: "Seconds a client may leave its socket full before it is cut off.")
    var writeTimeout: Double = 2

    @Option(name: .customLong("max-buffered"), help: "Bytes of unread output a client may accumulate before it is cut off.")
    var maximumBuffered: Int = 1 << 20

    @Option(name: .customLong("max-connections-per-uid"), help: "Connections one user may hold open at once.")
    var maximumConnectionsPerUID = 256

    @Option(name: .customLong("frame-timeout"), help: "Seconds a client has to complete a frame it has begun.")
    var frameTimeout: Double = 10

    @Option(
        name: .customLong("max-partial-frames"),
        help: "Bytes of incomplete frames the daemon holds for all its clients together.")
    var maximumPartialFrameBytes = 16 << 20

    @Option(
        name: .customLong("prompt-timeout"),
        help: "Seconds the user's agent has to answer a prompt before the default policy applies.")
    var promptTimeout: Double = 60

    @Option(
        help: """
            How an app is started for its background events: systemd (systemd-run --user, or the unit its \
            Info.plist names), exec (spawned by the daemon), none.
            """)
    var launcher: Launcher = .systemd

    @Option(name: .customLong("relaunch-limit"), help: "Launches of one app per --relaunch-window at most.")
    var relaunchLimit: Int = 5

    @Option(name: .customLong("relaunch-window"), help: "Seconds of the window --relaunch-limit counts in.")
    var relaunchWindow: Double = 60

    @Option(
        name: .customLong("relaunch-pickup"),
        help: "Seconds a launched app has to take its events before it is launched again (doubling, at most 300).")
    var relaunchPickup: Double = 10

    @Option(name: .customLong("pending-expiry"), help: "Seconds a pending event is kept for its app.")
    var pendingExpiry: Double = 3600

    @Option(
        help: """
            Serve GeoClue2 (org.freedesktop.GeoClue2) on a bus: system, session, or a D-Bus address; off (the \
            default) serves none. geoclue itself must not hold the name (decision 0074).
            """)
    var geoclue: String = "off"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    /// Parses the configuration file under the command line (LocationdConfig), then runs.
    static func main(commandLine: [String]) async {
        // The daemon hosts the network and modem sources for every app (docs/decisions/0038).
        NetworkSourceMakers.register()
        ModemSourceMakers.register()
        do {
            let arguments = try LocationdConfig.effectiveArguments(
                commandLine: commandLine, environment: ProcessInfo.processInfo.environment, isRoot: getuid() == 0)
            var command = try parseAsRoot(arguments)
            if let daemon = command as? Locationd {
                try await daemon.run()
            } else {
                try command.run()
            }
        } catch let failure as LocationdConfig.Failure {
            FileHandle.standardError.write(Data("locationd: \(failure)\n".utf8))
            exit(withError: ExitCode(78))
        } catch {
            exit(withError: error)
        }
    }

    func run() async throws {
        // SIGTERM/SIGINT are trapped before anything else: one that arrives while the daemon is
        // still starting (socket activation hands over a connection at once) shuts it down cleanly
        // once it is up, instead of killing it by the default action.
        let shutdown = ShutdownRequest()
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let watcher = Task {
            for await _ in signals { await shutdown.request() }
        }
        defer { watcher.cancel() }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = EscapingLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "locationd")
        let environment = ProcessInfo.processInfo.environment
        let isRoot = getuid() == 0
        if isRoot { Self.raisePriority(logger: logger) }

        let scheduler = DispatchScheduler()
        let madeSources: [any LocationSource]
        do {
            madeSources = try makeSources(scheduler: scheduler, logger: logger, environment: environment)
        } catch {
            throw ValidationError("\(error)")
        }
        if madeSources.isEmpty { logger.notice("No location source is configured; clients hear kCLErrorLocationUnknown.") }

        let databasePath = database ?? Self.defaultDatabasePath(environment: environment, isRoot: isRoot)
        let store = Composition.openStore(path: databasePath, writeAheadLog: true, logger: logger)

        var engineConfiguration = LocationEngine.Configuration()
        if let regionDwell, regionDwell >= 0 {
            engineConfiguration.regionRule = .dwell
            engineConfiguration.regionDwell = regionDwell
        }
        if let (metres, seconds) = Self.pair(significantChange) {
            engineConfiguration.significantDistance = metres
            engineConfiguration.significantInterval = seconds
        }
        if let monitoringProbeInterval { engineConfiguration.monitoringProbeInterval = monitoringProbeInterval }
        if let (stay, away) = Self.pair(visitStay) {
            engineConfiguration.visits.minimumStay = stay
            engineConfiguration.visits.departureDwell = away
        }
        // The region limit and the barometer's venue as every program sets them (the one composition root).
        // The IMU, when there is one, fuses every app's fixes: one more shared source (decision 0095, Wiring).
        let composition = Composition(
            sources: madeSources, scheduler: scheduler, configuration: engineConfiguration, regionLimit: regionLimit,
            environment: environment,
            inertial: Composition.environmentInertialSource(
                environment: environment, scheduler: scheduler, logger: logger),
            logger: logger)
        var limits = DaemonLimits(
            helloTimeout: helloTimeout, writeTimeout: writeTimeout, maximumBufferedBytes: maximumBuffered)
        limits.maximumConnectionsPerUID = max(maximumConnectionsPerUID, 1)
        limits.frameTimeout = frameTimeout > 0 ? frameTimeout : 10
        limits.maximumPartialFrameBytes = max(maximumPartialFrameBytes, DaemonProtocol.maximumFrameLength + 4)
        let core = DaemonCore(
            store: store, databasePath: databasePath,
            sources: SharedSources(composition.sources, clock: { scheduler.now }), scheduler: scheduler,
            configuration: composition.configuration, environmentPolicy: Composition.defaultPolicy(environment: environment),
            limits: limits, daemonUID: getuid(), agents: AgentRegistry(timeout: promptTimeout), launcher: launcher,
            relaunch: RelaunchPolicy(
                limit: max(relaunchLimit, 0), window: relaunchWindow, pickup: relaunchPickup, expiry: pendingExpiry,
                reconnectGrace: 2),
            logger: logger)
        core.restoreBackgroundApps()
        core.startBackgroundSweep()

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let socketPath = socket ?? DaemonProtocol.defaultSocketPath(environment: environment, isRoot: isRoot)
        let listening: Int32
        let ownsSocketFile: Bool
        let acceptor: Acceptor
        let relay: CredentialRelay
        do {
            if let fd = ListeningSocket.activated(environment: environment) {
                listening = fd
                ownsSocketFile = false
                logger.info("Listening on the socket systemd passed")
            } else {
                try ListeningSocket.prepare(path: socketPath, logger: logger)
                listening = try ListeningSocket.bind(path: socketPath)
                _ = chmod(socketPath, isRoot ? 0o666 : 0o600)
                ownsSocketFile = true
                logger.info("Listening", metadata: ["socket": "\(socketPath)", "database": "\(databasePath)"])
            }
            acceptor = try Acceptor(listening: listening, logger: logger)
            relay = try CredentialRelay(logger: logger)
        } catch {
            try? await group.shutdownGracefully()
            FileHandle.standardError.write(Data("locationd: \(error)\n".utf8))
            throw ExitCode(75)
        }
        acceptor.start(Self.connections(group: group, core: core, relay: relay, logger: logger))
        defer { relay.stop() }
        let geoclueService: GeoClueService?
        do {
            geoclueService = try await startGeoClue(core: core, logger: logger)
        } catch {
            acceptor.stop()
            try? await group.shutdownGracefully()
            FileHandle.standardError.write(Data("locationd: cannot serve GeoClue2: \(error)\n".utf8))
            throw ExitCode(69)
        }
        defer { geoclueService?.stop() }

        let service = AcceptorService(acceptor: acceptor, socketPath: ownsSocketFile ? socketPath : nil, logger: logger)
        let gpsdListeners = GPSDFrontDoor.listen(
            try gpsdListen.map { try GPSDListenAddress.parse($0) }, group: group, core: core, isRoot: isRoot,
            logger: logger)
        let gpsdServices = gpsdListeners.map {
            AcceptorService(acceptor: $0.acceptor, socketPath: $0.socketPath, logger: logger)
        }
        // Ready once every front door is open: a unit ordered after locationd finds GeoClue2 and gpsd's port there.
        ListeningSocket.notifyReady(environment: environment, logger: logger)
        let serviceGroup = ServiceGroup(
            services: [service] + gpsdServices, gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        await shutdown.attach(serviceGroup)
        try await serviceGroup.run()
        try? await group.shutdownGracefully()
        logger.info("Stopped")
    }

    /// The GeoClue2 service on the bus `--geoclue` names, or nil when it is off.
    func startGeoClue(core: DaemonCore, logger: Logger) async throws -> GeoClueService? {
        let bus: DBusClient.Bus
        switch geoclue {
        case "off": return nil
        case "system": bus = .system
        case "session": bus = .session
        default: bus = .address(geoclue)
        }
        return try await GeoClueService.start(bus: bus, core: core, logger: logger)
    }

    func validate() throws {
        if significantChange != nil, Self.pair(significantChange) == nil {
            throw ValidationError("--significant-change takes METRES,SECONDS (two numbers, not negative)")
        }
        if visitStay != nil, Self.pair(visitStay) == nil {
            throw ValidationError("--visit-stay takes SECONDS,SECONDS (two numbers, not negative)")
        }
        for address in gpsdListen {
            do { _ = try GPSDListenAddress.parse(address) } catch { throw ValidationError("\(error)") }
        }
    }

    /// `A,B` as two non-negative numbers, or nil.
    static func pair(_ text: String?) -> (Double, Double)? {
        guard let parts = text?.split(separator: ","), parts.count == 2, let first = Double(parts[0]),
            let second = Double(parts[1]), first >= 0, second >= 0
        else { return nil }
        return (first, second)
    }

    /// Nice −10 for every thread, as gpsd gives itself when started as root (gpsd.c, `nice(NICEVAL)`;
    /// decision 0055). A fix goes from the source's thread to every client's socket in turn (decision 0042),
    /// and the first send wakes a client that, at the same priority, the scheduler ran at once on the
    /// sender's CPU: 85 µs of the 218 µs from the read to the first client, measured. Threads made later
    /// inherit it from the threads that make them, but for libdispatch's pool, whose threads take a
    /// priority from their work's QoS. Only root may raise it; the system unit, which starts
    /// locationd as its own user, says `Nice=-10` instead.
    static func raisePriority(logger: Logger) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks {
            guard let thread = id_t(task) else { continue }
            if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, -10) != 0 {
                let reason = String(cString: strerror(errno))
                logger.warning("Cannot raise the priority", metadata: ["error": "\(reason)"])
                return
            }
        }
    }

    /// What the acceptor does with each connection (`Acceptor`): hands it to NIO, whose channel knows it by its
    /// descriptor from the start, so the daemon's direct writes need no search for it (issue 37, item 6). The peer is
    /// read here, before any byte of the connection is (`PeerIdentity.accepted`), and that read is the connection's
    /// identity: a Settings executable's connection goes to NIO through the `relay`, which passes on only what the
    /// process that connected wrote (decision 0100); every other connection goes to NIO as it is.
    static func connections(
        group: MultiThreadedEventLoopGroup, core: DaemonCore, relay: CredentialRelay, logger: Logger
    ) -> Acceptor.Connect {
        let connections = ConnectionCounter(limit: core.limits.maximumConnectionsPerUID)
        let partial = PartialFrames(limit: core.limits.maximumPartialFrameBytes)
        let frameTimeout = core.limits.frameTimeout
        return { accepted in
            let peer = PeerIdentity.accepted(accepted)
            var descriptor = accepted
            if let peer, peer.pidfd >= 0 {
                if let executable = peer.executable, DaemonCore.settingsExecutables.contains(executable) {
                    switch relay.relay(accepted, connector: peer.pidfd, pid: peer.credentials.pid) {
                    case let .relayed(end): descriptor = end
                    case .unsupported: close(peer.pidfd)
                    case let .failed(reason):
                        // Refused rather than served unchecked.
                        logger.warning("Cannot check a Settings connection", metadata: ["error": "\(reason)"])
                        close(peer.pidfd)
                        close(accepted)
                        return
                    }
                } else {
                    close(peer.pidfd)
                }
            }
            let bootstrap = Acceptor.bootstrap(group: group)
                .channelInitializer { [descriptor] channel in
                    let identity = peer.map { PeerIdentity.of($0, on: channel.eventLoop) }
                        ?? channel.eventLoop.makeSucceededFuture(nil)
                    return identity.and(DirectSocket.cookie(of: channel)).flatMap { found in
                        let (identity, cookie) = found
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ByteToMessageHandler(FrameSplitter(partial: partial, frameTimeout: frameTimeout)))
                            try channel.pipeline.syncOperations.addHandler(
                                ConnectionHandler(
                                    core: core, identity: identity,
                                    socket: cookie.map { DirectSocket.Accepted(descriptor: descriptor, cookie: $0) },
                                    connections: connections, logger: logger))
                        }
                    }.flatMap {
                        channel.setOption(.autoRead, value: true)
                    }
                }
            // On failure NIO has closed the channel, and with it the descriptor (making the channel itself cannot
            // fail on Linux: NIO's socket takes the descriptor as it is, already non-blocking from `accept4`).
            bootstrap.withConnectedSocket(descriptor).whenFailure { error in
                logger.warning("Cannot serve a connection", metadata: ["error": "\(error)"])
            }
        }
    }

    func makeSources(scheduler: any Scheduler, logger: Logger, environment: [String: String]) throws -> [any LocationSource] {
        if let simulate = simulate ?? environment["CORELOCATION_SIMULATE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let scenario = try SimulationScenario.parse(simulate)
            return [try SimulatedLocationSource(scenario: scenario, speed: simulateSpeed, noise: nil, scheduler: scheduler)]
        }
        let selection = try SourceSelection.resolve(
            commandLine: try sources.map { try SourceSpec.parse($0) }, environment: environment, probe: { _ in true })
        return try selection.specs.flatMap {
            try Self.makeSources($0, scheduler: scheduler, logger: logger, environment: environment)
        }
    }

    /// A daemon's source: receivers that are not there yet are not an error (unlike for a command
    /// line tool): gpsd not started, a serial receiver not plugged in, a TCP feed down are
    /// retried by the source while apps want it, and `locationctl sources` says why it waits.
    /// Without any configuration, gpsd on localhost is always the source, answering or not.
    /// `ip:`, `wifi:` and `modem:` sources likewise: a missing IP database, no NetworkManager or ModemManager
    /// yet make a source that reports `unavailable` until they are there.
    static func makeSources(
        _ spec: SourceSpec, scheduler: any Scheduler, logger: Logger, environment: [String: String]
    ) throws -> [any LocationSource] {
        switch spec {
        case .nmea(.serial), .nmea(.tcp):
            guard case let .nmea(input) = spec else { break }
            return [NMEAStreamSource(input: input, scheduler: scheduler, logger: logger)]
        default:
            break
        }
        return try SourceFactory.makeSources(spec, environment: environment, scheduler: scheduler, logger: logger)
    }

    static func defaultDatabasePath(environment: [String: String], isRoot: Bool) -> String {
        if isRoot { return "/var/lib/corelocation/locationd.sqlite" }
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/corelocation/locationd.sqlite"
    }
}

/// A shutdown asked for by a signal, possibly before the service group exists.
actor ShutdownRequest {
    private var group: ServiceGroup?
    private var requested = false

    func request() async {
        requested = true
        await group?.triggerGracefulShutdown()
    }

    func attach(_ group: ServiceGroup) async {
        self.group = group
        if requested { await group.triggerGracefulShutdown() }
    }
}

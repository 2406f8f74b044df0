import Foundation
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LocationRuntime {
    /// How the library finds its engine: `CORELOCATION_DAEMON`.
    package enum DaemonMode: String, Sendable {
        /// locationd when its socket answers, else the in-process engine (the default).
        case auto
        /// Only locationd: wait for it (reconnecting) rather than run an engine in process.
        case require
        /// The in-process engine, always.
        case off
    }

    /// The daemon's socket for this process: `CORELOCATION_DAEMON_SOCKET`, else the per-user
    /// instance's when it exists, else the system instance's.
    package static func daemonSocketPath(environment: [String: String]) -> String {
        if let explicit = environment["CORELOCATION_DAEMON_SOCKET"], !explicit.isEmpty { return explicit }
        let user = DaemonProtocol.defaultSocketPath(environment: environment, isRoot: false)
        if FileManager.default.fileExists(atPath: user) { return user }
        return DaemonProtocol.systemSocketPath
    }

    /// A runtime whose engine is locationd's, or nil to run the engine in process. A simulation
    /// asked for in the environment (`CORELOCATION_SIMULATE`) keeps the engine in process under
    /// `auto`: the app asked for its own source.
    package static func daemonClient(
        environment: [String: String], identity: AppIdentity? = nil, logger: Logger
    ) -> LocationRuntime? {
        let mode = environment["CORELOCATION_DAEMON"].flatMap(DaemonMode.init(rawValue:)) ?? .auto
        if mode == .off { return nil }
        if mode == .auto, let simulate = environment["CORELOCATION_SIMULATE"], !simulate.isEmpty { return nil }
        let path = daemonSocketPath(environment: environment)
        let label = (AppIdentity.executablePath() as NSString).lastPathComponent
        let link: DaemonLink
        do {
            link = try DaemonLink.connect(path: path, label: label, logger: logger)
        } catch {
            guard mode == .require else {
                logger.debug("locationd does not answer; running the engine in process", metadata: ["socket": "\(path)"])
                return nil
            }
            logger.notice("locationd does not answer yet; waiting for it", metadata: ["socket": "\(path)", "error": "\(error)"])
            link = DaemonLink.waiting(path: path, label: label, logger: logger)
        }
        return daemonClient(link: link, environment: environment, identity: identity, logger: logger)
    }

    /// A runtime over `link`: no sources, no storage; authorization decided by the daemon.
    package static func daemonClient(
        link: DaemonLink, environment: [String: String], identity: AppIdentity? = nil, logger: Logger
    ) -> LocationRuntime {
        let authorization = AuthorizationService(
            identity: identity ?? .current(environment: environment), store: nil, prompter: nil, environmentPolicy: nil,
            sourcesAreSimulated: false, logger: logger, broker: link
        )
        link.attach(authorization)
        var configuration = LocationEngine.Configuration()
        if let limit = environment["CORELOCATION_REGION_LIMIT"].flatMap(Int.init), limit > 0 {
            configuration.regionLimit = limit
        }
        let runtime = LocationRuntime(
            sources: [], scheduler: DispatchScheduler(), authorization: authorization, configuration: configuration,
            regionStore: nil, logger: logger, link: link
        )
        // The app's regions from earlier launches live in the daemon: mirror them, so that
        // `monitoredRegions` lists them as in process (where they come from the app's database).
        let regions = link.monitoredRegions()
        if !regions.isEmpty { runtime.input(.restoreRegions(regions)) }
        return runtime
    }

    /// `locationServicesEnabled()` as the daemon says, when this process is its client.
    package static var daemonServicesEnabled: Bool {
        shared.link?.servicesEnabled ?? true
    }
}

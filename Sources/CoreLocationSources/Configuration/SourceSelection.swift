import Foundation
import Logging

/// Which real sources a process uses, and why.
public struct SourceSelection: Sendable {
    /// Where the choice came from.
    public enum Origin: Sendable, Equatable {
        /// `--source` on the command line.
        case commandLine
        /// A `sources.conf` at this path.
        case file(String)
        /// Nothing configured, but gpsd answered on localhost.
        case probedLocalGPSD
        /// Nothing configured and no local gpsd.
        case none
    }

    public var specs: [SourceSpec]
    public var origin: Origin

    public init(specs: [SourceSpec], origin: Origin) {
        self.specs = specs
        self.origin = origin
    }

    /// How long the local gpsd probe waits for a connection, seconds. A gpsd that is not running
    /// refuses at once on loopback; the timeout only matters for a wedged one.
    public static let probeTimeout = 0.25

    /// Chooses: the command line's sources if any, else the configuration file's, else gpsd on
    /// localhost if it accepts a connection within `probeTimeout`, else none. Unconfigured, the machine's
    /// own barometer is added too (`discoveredBarometer`).
    public static func resolve(
        commandLine: [SourceSpec] = [],
        environment: [String: String],
        probe: (GPSDEndpoint) -> Bool = { probeGPSD($0, timeout: probeTimeout) }
    ) throws -> SourceSelection {
        if !commandLine.isEmpty { return SourceSelection(specs: commandLine, origin: .commandLine) }
        if let (path, specs) = try SourcesConfigFile.load(environment: environment) {
            return SourceSelection(specs: specs, origin: .file(path))
        }
        let barometer = discoveredBarometer(environment: environment).map { [SourceSpec.barometer($0)] } ?? []
        if probe(.localhost) {
            return SourceSelection(specs: [.gpsd(.localhost)] + barometer, origin: .probedLocalGPSD)
        }
        return SourceSelection(specs: barometer, origin: .none)
    }

    /// The first IIO pressure sensor under the sysfs root (`CORELOCATION_SYSFS_ROOT`, else `/sys`), as
    /// `barometer:iio:deviceN`: an iPhone uses its barometer for altitude without being asked, and so does a
    /// machine with one when nothing names its sources. One only: two sensors' readings differ by their
    /// calibration offsets, and the altitude filter takes one pressure series (decision 0032). A
    /// configuration that names sources gets exactly those.
    public static func discoveredBarometer(environment: [String: String]) -> BarometerSpec? {
        let sensors = IIOPressureDevice.devices(sysfsRoot: BarometerSpec.sysfsRoot(environment: environment))
        return sensors.first.map { BarometerSpec(device: $0.deviceName) }
    }

    /// True when something accepts a TCP connection at `endpoint` within `timeout` seconds.
    public static func probeGPSD(_ endpoint: GPSDEndpoint, timeout: Double) -> Bool {
        guard let fd = try? SocketConnector.connect(host: endpoint.host, port: endpoint.port, timeout: timeout) else {
            return false
        }
        close(fd)
        return true
    }

    /// The sources, made; a spec that cannot be made is logged and left out.
    public func makeSources(
        environment: [String: String] = ProcessInfo.processInfo.environment, scheduler: any Scheduler, logger: Logger,
        makers: SourceMakers = .shared
    ) -> [any LocationSource] {
        specs.flatMap { spec -> [any LocationSource] in
            do {
                return try SourceFactory.makeSources(
                    spec, environment: environment, scheduler: scheduler, logger: logger, makers: makers)
            } catch {
                logger.error("Location source is not usable", metadata: ["source": "\(spec)", "error": "\(error)"])
                return []
            }
        }
    }
}

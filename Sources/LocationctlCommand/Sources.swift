import ArgumentParser
import CoreLocation
import CoreLocationCellular
import Foundation
import CoreLocationEngine
import CoreLocationSources

extension LocationCtl {
    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "Show the real sources: configured, reachable, powered, satellites and last fix.",
            discussion: """
                Sources come from --source, else the first sources.conf found \
                ($CORELOCATION_SOURCES_CONF, $XDG_CONFIG_HOME/corelocation/sources.conf, \
                /etc/corelocation/sources.conf; one URL per line, # comments), else gpsd on \
                127.0.0.1:2947 if it answers. Each gpsd is watched for up to --wait seconds.

                Examples:
                  locationctl sources
                  locationctl sources --source gpsd://192.168.1.20:2947 --format json
                """
        )

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp("A source URL to inspect instead of the configured ones (repeatable).", valueName: "url")
        )
        var sources: [String] = []

        @Option(help: ArgumentHelp("Seconds to wait for each gpsd's satellites and fix.", valueName: "s"))
        var wait: Double = 2

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        func validate() throws {
            guard wait >= 0, wait <= 60 else { throw ValidationError("--wait must be between 0 and 60 seconds") }
            guard format == .text || format == .json else { throw ValidationError("sources prints text or json") }
            for text in sources {
                do { _ = try SourceSpec.parse(text) } catch { throw ValidationError("--source \(error)") }
            }
        }

        mutating func run() async throws {
            if sources.isEmpty, let daemon = LocationdClient.connect() {
                defer { daemon.close() }
                guard case let .status(status) = try LocationdClient.request(daemon, .status) else { return }
                return try LocationdClient.printSources(status, json: format == .json)
            }
            let specs = try sources.map { try SourceSpec.parse($0) }
            let selection = try SourceSelection.resolve(
                commandLine: specs, environment: ProcessInfo.processInfo.environment
            )
            var reports: [SourceReport] = []
            for spec in selection.specs {
                reports.append(await SourceReport.inspect(spec, wait: wait))
            }
            // With no --source and no ip:/wifi: configured, the network sources the in-process runtime adds are
            // listed too.
            let namesNetwork = selection.specs.contains {
                if case .external(let external) = $0 { ["ip", "wifi"].contains(external.scheme) } else { false }
            }
            let network = sources.isEmpty && !namesNetwork
                ? NetworkSourceRows.inspect(environment: ProcessInfo.processInfo.environment) : nil
            // Modems known to ModemManager (none listed when it is not running).
            let modems = await ModemSourceRows.inspect(environment: ProcessInfo.processInfo.environment)
            // The IIO accelerometer + gyroscope the fused location reads (none listed without one).
            let inertial = InertialSourceRow.inspect(environment: ProcessInfo.processInfo.environment)
            let origin: String
            switch selection.origin {
            case .commandLine: origin = "--source"
            case .file(let path): origin = path
            case .probedLocalGPSD: origin = "none configured; gpsd answered on 127.0.0.1:2947"
            case .none: origin = "none"
            }
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                let data = try encoder.encode(SourcesDocument(
                    configuredBy: origin, sources: reports, network: network, modems: modems, inertial: inertial))
                print(String(decoding: data, as: UTF8.self))
            default:
                print("Configured by: \(origin)")
                if reports.isEmpty {
                    print(
                        """
                        No real source. Name one with --source or in a sources.conf (one URL per line: \
                        gpsd://host:port, nmea:/path/file.nmea, serial:/dev/ttyUSB0?baud=9600, tcp://host:port, stdin), \
                        or use --simulate with locate/track.
                        """)
                }
                for report in reports { print(report.text) }
                for row in network ?? [] { print(row.text) }
                for row in modems ?? [] { print(row.text) }
                if let inertial { print(inertial.text) }
            }
        }
    }
}

struct SourcesDocument: Encodable {
    var configuredBy: String
    var sources: [SourceReport]
    /// IP and Wi-Fi positioning (`locationctl network`); absent when sources were named with --source.
    var network: [NetworkSourceRows]?
    /// ModemManager's modems (docs/decisions/0035); absent when ModemManager is not running.
    var modems: [ModemSourceRows]?
    /// The IIO inertial unit (decision 0096); absent without one.
    var inertial: InertialSourceRow?
}

/// What `locationctl sources` says about one source.
struct SourceReport: Encodable {
    struct LastFix: Encodable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var horizontalAccuracy: Double
        var timestamp: Date
    }

    var url: String
    var kind: String
    var reachable: Bool?
    var powered: Bool?
    var version: String?
    var devices: [String]?
    var mode: Int?
    var satellitesInView: Int?
    var satellitesUsed: Int?
    var lastFix: LastFix?
    /// A barometer's reading now, hectopascals.
    var pressure: Double?
    /// A network source's state: ready, unavailable, on, off (not consented)…
    var state: String?
    var note: String?

    static func inspect(_ spec: SourceSpec, wait: Double) async -> SourceReport {
        switch spec {
        case .gpsd(let endpoint):
            return await inspectGPSD(endpoint, url: spec.description, wait: wait)
        case .nmea(.file(let path, _)), .nmea(.serial(let path, _)):
            let readable = FileManager.default.isReadableFile(atPath: path)
            let note =
                readable
                ? nil
                : (FileManager.default.fileExists(atPath: path)
                    ? "\(path) is not readable (serial devices need the dialout group)" : "\(path) does not exist")
            return SourceReport(url: spec.description, kind: "nmea", reachable: readable, note: note)
        case .nmea(.tcp(let host, let port)):
            let reachable = SourceSelection.probeGPSD(GPSDEndpoint(host: host, port: UInt16(clamping: port)), timeout: 1)
            return SourceReport(url: spec.description, kind: "nmea", reachable: reachable)
        case .nmea(.stdin):
            return SourceReport(url: spec.description, kind: "nmea")
        case .barometer(let barometer):
            return inspectBarometer(barometer, url: spec.description)
        case .external(let external):
            return await inspectExternal(external, environment: ProcessInfo.processInfo.environment)
        }
    }

    private static func inspectGPSD(_ endpoint: GPSDEndpoint, url: String, wait: Double) async -> SourceReport {
        let source = GPSDLocationSource(endpoint: endpoint, scheduler: DispatchScheduler())
        source.start { _ in }
        let deadline = Date().addingTimeInterval(wait)
        var status = source.status
        while Date() < deadline {
            status = source.status
            let refused = !status.isConnected && status.lastError != nil
            let complete = status.lastFix != nil && status.satellitesInView != nil
            if refused || complete { break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        source.stop()
        status = source.status
        let reachable = status.release != nil || status.isConnected
        return SourceReport(
            url: url,
            kind: "gpsd",
            reachable: reachable,
            powered: reachable ? status.isPowered : nil,
            version: status.release,
            devices: reachable ? status.devices.compactMap(\.path) : nil,
            mode: status.mode,
            satellitesInView: status.satellitesInView,
            satellitesUsed: status.satellitesUsed,
            lastFix: status.lastFix.map {
                LastFix(
                    latitude: $0.latitude, longitude: $0.longitude,
                    altitude: $0.verticalAccuracy >= 0 ? $0.altitude : nil,
                    horizontalAccuracy: $0.horizontalAccuracy, timestamp: $0.timestamp
                )
            },
            note: reachable ? nil : status.lastError
        )
    }

    var text: String {
        func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        var lines = ["\(url) (\(kind))", "  reachable: \(yesNo(reachable))"]
        if kind == "gpsd" {
            lines.append(
                "  powered: \(yesNo(powered))"
                    + (devices.map { $0.isEmpty ? "" : " (\($0.joined(separator: ", ")))" } ?? ""))
            if let version { lines.append("  gpsd: \(version)") }
            let inView = satellitesInView.map(String.init) ?? "?"
            let used = satellitesUsed.map(String.init) ?? "?"
            lines.append("  satellites: \(used) used of \(inView) in view")
            if let lastFix {
                let altitude = lastFix.altitude.map { String(format: ", %.1f m", $0) } ?? ""
                lines.append(
                    String(format: "  last fix: %.6f, %.6f", lastFix.latitude, lastFix.longitude) + altitude
                        + String(format: " ±%.1f m at ", lastFix.horizontalAccuracy)
                        + ISO8601DateFormatter().string(from: lastFix.timestamp)
                )
            } else {
                lines.append(
                    "  last fix: none" + (mode.map { $0 < 2 ? " (gpsd reports no fix, mode \($0))" : "" } ?? ""))
            }
        }
        if kind == "barometer" { lines += barometerLines }
        if kind != "gpsd", kind != "nmea", kind != "barometer" { lines += networkLines }
        if let note { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }
}

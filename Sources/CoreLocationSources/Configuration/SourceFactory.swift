import Foundation
import Logging

/// Makes the sources that configuration names.
public enum SourceFactory {
    /// The sources for one spec: one, except for an external kind that makes several (`modem:`: its GNSS and its
    /// cell). External kinds are made by their registered `SourceMaker` (docs/decisions/0038).
    public static func makeSources(
        _ spec: SourceSpec, environment: [String: String] = ProcessInfo.processInfo.environment,
        scheduler: any Scheduler, logger: Logger, makers: SourceMakers = .shared
    ) throws -> [any LocationSource] {
        if case .external(let external) = spec {
            return try makers.make(
                external, context: SourceMakingContext(environment: environment, scheduler: scheduler, logger: logger))
        }
        return [try makeSource(spec, environment: environment, scheduler: scheduler, logger: logger)]
    }

    /// The source for one spec. gpsd sources never fail here (an unreachable gpsd is retried);
    /// NMEA inputs fail when this build has no NMEA support.
    public static func makeSource(
        _ spec: SourceSpec, environment: [String: String] = ProcessInfo.processInfo.environment,
        scheduler: any Scheduler, logger: Logger
    ) throws -> any LocationSource {
        switch spec {
        case .gpsd(let endpoint):
            return GPSDLocationSource(endpoint: endpoint, scheduler: scheduler, logger: logger)
        case .nmea(let input):
            return try makeNMEASource(input, scheduler: scheduler, logger: logger)
        case .barometer(let barometer):
            let root = BarometerSpec.sysfsRoot(environment: environment)
            guard let sensor = barometer.sensor(sysfsRoot: root) else {
                throw SourceConfigurationError(
                    .notAvailable, "\(barometer): no IIO pressure sensor \(barometer.device ?? "") under \(root)/bus/iio/devices")
            }
            return IIOBarometerSource(
                sensor: sensor, interval: barometer.interval, venue: barometer.venue, scheduler: scheduler, logger: logger)
        case .external(let external):
            let made = try SourceMakers.shared.make(
                external,
                context: SourceMakingContext(environment: environment, scheduler: scheduler, logger: logger))
            guard made.count == 1, let source = made.first else {
                throw SourceConfigurationError(.invalidURL, "\(external) makes \(made.count) sources; use makeSources")
            }
            return source
        }
    }

    /// The NMEA 0183 source for `input`: a file replays at its pace; serial devices, TCP streams
    /// and standard input are read live (see `NMEAStreamSource`).
    public static func makeNMEASource(
        _ input: NMEAInput, scheduler: any Scheduler, logger: Logger
    ) throws -> any LocationSource {
        try NMEAStreamSource.checkAccess(input)
        return NMEAStreamSource(input: input, scheduler: scheduler, logger: logger)
    }
}

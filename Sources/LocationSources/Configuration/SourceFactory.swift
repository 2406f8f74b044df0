import Foundation
import Logging

/// Makes the sources that configuration names.
public enum SourceFactory {
    /// The source for one spec. gpsd sources never fail here (an unreachable gpsd is retried);
    /// NMEA inputs fail when this build has no NMEA support.
    public static func makeSource(
        _ spec: SourceSpec, scheduler: any Scheduler, logger: Logger
    ) throws -> any LocationSource {
        switch spec {
        case .gpsd(let endpoint):
            return GPSDLocationSource(endpoint: endpoint, scheduler: scheduler, logger: logger)
        case .nmea(let input):
            return try makeNMEASource(input, scheduler: scheduler, logger: logger)
        }
    }

    // MERGE POINT (lead): wire this to the nmea helper's `NMEAStreamSource`, e.g.
    //   case .file(path): NMEAStreamSource(file: path, …); case .serial(path, baud): …;
    //   case .tcp(host, port): …; case .stdin: …
    // It is the only place configuration code constructs an NMEA source.
    /// The NMEA 0183 source for `input`.
    public static func makeNMEASource(
        _ input: SourceSpec.NMEAInput, scheduler: any Scheduler, logger: Logger
    ) throws -> any LocationSource {
        throw SourceConfigurationError(
            .notAvailable, "\(SourceSpec.nmea(input)): NMEA sources are not available in this build"
        )
    }
}

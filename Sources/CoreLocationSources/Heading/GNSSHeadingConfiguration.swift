import Foundation
import CoreLocationEngine

/// Chooses a GNSS heading source from a source string (`CORELOCATION_HEADING_SOURCE`):
/// - `gpsd://host:port` (or `gpsd://host`, port 2947): gpsd ATT reports, `GPSDHeadingSource`;
/// - an NMEA input as `NMEAInput.parse` reads it — `nmea:/path/log.nmea`, `serial:/dev/ttyUSB0?baud=4800`,
///   `tcp://host:port`, `stdin` — HDT/HDG/THS sentences, `NMEAHeadingSource`.
public enum GNSSHeadingConfiguration {
    public static let environmentKey = "CORELOCATION_HEADING_SOURCE"

    /// The source `text` names; throws when the string is not a valid gpsd or NMEA source.
    public static func source(from text: String, scheduler: any Scheduler) throws -> any HeadingSource {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("gpsd:") {
            guard case .gpsd(let endpoint) = try SourceSpec.parse(trimmed) else {
                throw NMEASourceError(
                    code: .invalidInput, message: "invalid gpsd source '\(trimmed)'", target: trimmed)
            }
            return GPSDHeadingSource(endpoint: endpoint, scheduler: scheduler)
        }
        return NMEAHeadingSource(input: try NMEAInput.parse(trimmed), scheduler: scheduler)
    }
}

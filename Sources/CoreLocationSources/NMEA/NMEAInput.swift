import Foundation

/// Where NMEA sentences come from.
public enum NMEAInput: Sendable, Hashable, CustomStringConvertible {
    /// A recorded log, replayed at its recorded pace (from the sentences' UTC times, through the
    /// `Scheduler`) or as fast as possible.
    case file(path: String, pace: ReplayPace)
    /// A serial device (`/dev/ttyUSB0`, `/dev/ttyACM0`…), raw 8N1; nil baud = auto-detect among
    /// `NMEABaudDetector.candidateRates`.
    case serial(path: String, baud: Int?)
    /// A TCP stream (phone apps that share NMEA over Wi-Fi, ser2net, a receiver's Ethernet port).
    case tcp(host: String, port: Int)
    /// The process's standard input.
    case stdin

    public enum ReplayPace: Sendable, Hashable {
        /// The recorded pace, multiplied by `speed` (> 0).
        case recorded(speed: Double)
        case asFastAsPossible

        /// The recorded pace itself.
        public static let realTime = ReplayPace.recorded(speed: 1)
    }

    /// The baud rates `serial` accepts.
    public static let supportedBaudRates = [4_800, 9_600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800]

    public var description: String {
        switch self {
        case .file(let path, .asFastAsPossible): "nmea:\(path)?pace=fast"
        case .file(let path, .recorded(let speed)): speed == 1 ? "nmea:\(path)" : "nmea:\(path)?speed=\(speed)"
        case .serial(let path, let baud): baud.map { "serial:\(path)?baud=\($0)" } ?? "serial:\(path)"
        case .tcp(let host, let port): "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .stdin: "stdin"
        }
    }

    /// Parses an NMEA source URL (see `SourceSpec` for the forms and options):
    /// `nmea:/path/file.nmea[?pace=fast|speed=N]` (`file:` too), `serial:/dev/ttyUSB0[?baud=N|auto]`,
    /// `tcp://host:port`, `stdin` or `-`. `gpsd://…` is not an NMEA input (the gpsd client handles it).
    public static func parse(_ text: String) throws(NMEASourceError) -> NMEAInput {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func invalid(_ why: String) -> NMEASourceError {
            NMEASourceError(code: .invalidInput, message: "invalid NMEA source '\(trimmed)': \(why)", target: trimmed)
        }
        let spec: SourceSpec
        do {
            spec = try SourceSpec.parse(trimmed)
        } catch let error as SourceConfigurationError {
            // Its messages begin with the URL, which ours names already.
            let message = error.message
            throw invalid(message.hasPrefix(trimmed + ": ") ? String(message.dropFirst(trimmed.count + 2)) : message)
        } catch {
            throw invalid("\(error)")
        }
        guard case .nmea(let input) = spec else { throw invalid("gpsd:// is not an NMEA input") }
        return input
    }
}

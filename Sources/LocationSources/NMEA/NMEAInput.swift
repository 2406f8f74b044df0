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

    /// Parses a source string:
    ///
    /// - `nmea:/path/file.nmea` (recorded pace), `nmea:/path/file.nmea?pace=fast`,
    ///   `nmea:/path/file.nmea?speed=10`; `file:` is accepted for `nmea:`
    /// - `serial:/dev/ttyUSB0` (auto baud), `serial:/dev/ttyUSB0?baud=9600`
    /// - `tcp://host:port`, `tcp://[::1]:10110`
    /// - `stdin` or `-`
    ///
    /// `gpsd://…` is not an NMEA input (the gpsd client handles it).
    public static func parse(_ text: String) throws(NMEASourceError) -> NMEAInput {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func invalid(_ why: String) -> NMEASourceError {
            NMEASourceError(code: .invalidInput, message: "invalid NMEA source '\(trimmed)': \(why)", target: trimmed)
        }
        if trimmed == "stdin" || trimmed == "-" { return .stdin }
        if trimmed.hasPrefix("tcp://") {
            let rest =
                trimmed.dropFirst("tcp://".count).split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
            let host: String
            let portText: Substring
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                let after = rest[rest.index(after: close)...]
                guard after.hasPrefix(":") else { throw invalid("expected tcp://[address]:port") }
                portText = after.dropFirst()
            } else {
                guard let colon = rest.lastIndex(of: ":") else { throw invalid("expected tcp://host:port") }
                host = String(rest[..<colon])
                portText = rest[rest.index(after: colon)...]
            }
            guard !host.isEmpty else { throw invalid("missing host") }
            guard let port = Int(portText), (1...65_535).contains(port) else {
                throw invalid("port must be 1–65535, got '\(portText)'")
            }
            return .tcp(host: host, port: port)
        }
        let (scheme, remainder): (String, Substring)
        if let colon = trimmed.firstIndex(of: ":"), !trimmed.hasPrefix("/") {
            scheme = String(trimmed[..<colon])
            remainder = trimmed[trimmed.index(after: colon)...]
        } else {
            throw invalid("expected nmea:PATH, serial:DEVICE, tcp://HOST:PORT or stdin")
        }
        let parts = remainder.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        guard !path.isEmpty else { throw invalid("missing path") }
        var options: [String: String] = [:]
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1)
                guard keyValue.count == 2 else { throw invalid("option '\(pair)' is not key=value") }
                options[String(keyValue[0])] = String(keyValue[1])
            }
        }
        switch scheme {
        case "nmea", "file":
            var pace = ReplayPace.realTime
            for (key, value) in options {
                switch key {
                case "pace" where value == "fast" || value == "max": pace = .asFastAsPossible
                case "pace" where value == "recorded": pace = .realTime
                case "speed":
                    guard let speed = Double(value), speed > 0, speed.isFinite else {
                        throw invalid("speed must be a number > 0")
                    }
                    pace = .recorded(speed: speed)
                default: throw invalid("unknown option \(key)=\(value) (pace=fast|recorded, speed=N)")
                }
            }
            return .file(path: path, pace: pace)
        case "serial":
            var baud: Int?
            for (key, value) in options {
                guard key == "baud" else { throw invalid("unknown option \(key) (baud=N)") }
                if value == "auto" { continue }
                guard let rate = Int(value), supportedBaudRates.contains(rate) else {
                    throw invalid(
                        "baud must be one of \(supportedBaudRates.map(String.init).joined(separator: ", ")) or auto")
                }
                baud = rate
            }
            return .serial(path: path, baud: baud)
        default:
            throw invalid("unknown scheme '\(scheme)' (nmea:, serial:, tcp://, stdin)")
        }
    }
}

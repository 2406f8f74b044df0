import Foundation

/// A source named by URL, on the command line (`--source`), in `sources.conf`, or as a heading
/// source. This is the one parser of source URLs; `NMEAInput.parse` reads NMEA inputs through it.
///
/// | URL                              | Source                                           |
/// |----------------------------------|--------------------------------------------------|
/// | `gpsd://host:port`, `gpsd://`    | gpsd's JSON protocol (default 127.0.0.1:2947)    |
/// | `nmea:/path/file.nmea`           | an NMEA 0183 log, replayed at its recorded pace; `?pace=fast` as fast as possible, `?speed=N` N times faster (`file:` is the same) |
/// | `serial:/dev/ttyUSB0?baud=9600`  | an NMEA receiver on a serial line (baud one of `NMEAInput.supportedBaudRates`, or `auto`/absent to detect) |
/// | `tcp://host:port`                | an NMEA stream over TCP (phone apps, gpsfeed)     |
/// | `stdin`, `-`                     | NMEA on standard input                            |
/// | `barometer:`, `iio-pressure:`    | an IIO pressure sensor, for altitude and floors (`BarometerSpec`) |
/// | `ip:`, `ip:/path/db.mmdb?address=…` | offline IP geolocation (CoreLocationNetwork; `ip:` = the default database) |
/// | `wifi:`                          | Wi-Fi positioning (NetworkManager + a geolocate service, with consent) |
/// | `geoclue:`                       | GeoClue2 over D-Bus                               |
/// | `modem:`, `modem:gnss`, `modem:cell` | ModemManager (CoreLocationCellular)           |
///
/// The last four are `ExternalSourceSpec`s: made by the module that registered them (docs/decisions/0038).
public enum SourceSpec: Hashable, Sendable, CustomStringConvertible {
    case gpsd(GPSDEndpoint)
    case nmea(NMEAInput)
    case barometer(BarometerSpec)
    case external(ExternalSourceSpec)

    public var description: String {
        switch self {
        case .gpsd(let endpoint): endpoint.description
        case .nmea(let input): input.description
        case .barometer(let barometer): barometer.description
        case .external(let external): external.description
        }
    }

    /// Parses a source URL (surrounding blanks ignored). An external kind is checked by its maker in `makers`, when
    /// one is registered there.
    public static func parse(_ text: String, makers: SourceMakers = .shared) throws -> SourceSpec {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text == "stdin" || text == "-" { return .nmea(.stdin) }
        if let rest = text.strip(prefix: "gpsd://") {
            if rest.isEmpty || rest == "/" { return .gpsd(.localhost) }
            let (host, port) = try hostPort(rest, defaultPort: GPSDEndpoint.defaultPort, url: text)
            return .gpsd(GPSDEndpoint(host: host.isEmpty ? "127.0.0.1" : host, port: port))
        }
        if let rest = text.strip(prefix: "tcp://") {
            let (host, port) = try hostPort(rest, defaultPort: nil, url: text)
            guard !host.isEmpty else { throw SourceConfigurationError(.invalidURL, "\(text): a host is required") }
            return .nmea(.tcp(host: host, port: Int(port)))
        }
        if let rest = text.strip(prefix: "nmea:") ?? text.strip(prefix: "file:") {
            let (path, options) = try pathAndOptions(rest, url: text, what: "a file path")
            var pace = NMEAInput.ReplayPace.realTime
            for (key, value) in options {
                switch (key, value) {
                case ("pace", "fast"), ("pace", "max"): pace = .asFastAsPossible
                case ("pace", "recorded"): pace = .realTime
                case ("speed", _):
                    guard let speed = Double(value), speed > 0, speed.isFinite else {
                        throw SourceConfigurationError(.invalidURL, "\(text): speed must be a number > 0")
                    }
                    pace = .recorded(speed: speed)
                default:
                    throw SourceConfigurationError(
                        .invalidURL, "\(text): unknown option \(key)=\(value) (pace=fast|recorded, speed=N)")
                }
            }
            return .nmea(.file(path: path, pace: pace))
        }
        if let rest = text.strip(prefix: "barometer:") ?? text.strip(prefix: "iio-pressure:") {
            return .barometer(try BarometerSpec.parse(rest, url: text))
        }
        if let rest = text.strip(prefix: "serial:") {
            let (path, options) = try pathAndOptions(rest, url: text, what: "a device path")
            var baud: Int?
            for (key, value) in options {
                guard key == "baud" else {
                    throw SourceConfigurationError(.invalidURL, "\(text): unknown parameter '\(key)' (only baud=)")
                }
                if value == "auto" { continue }
                guard let rate = Int(value), NMEAInput.supportedBaudRates.contains(rate) else {
                    let rates = NMEAInput.supportedBaudRates.map(String.init).joined(separator: ", ")
                    throw SourceConfigurationError(.invalidBaudRate, "\(text): baud must be one of \(rates) or auto")
                }
                baud = rate
            }
            return .nmea(.serial(path: path, baud: baud))
        }
        if let colon = text.firstIndex(of: ":"),
            case let scheme = text[..<colon].lowercased(), ExternalSourceSpec.knownSchemes.contains(scheme)
        {
            let external = ExternalSourceSpec(scheme: scheme, rest: String(text[text.index(after: colon)...]))
            try makers.maker(for: scheme)?.validate(external)
            return .external(external)
        }
        if let scheme = text.range(of: ":")?.lowerBound, text[..<scheme].allSatisfy({ $0.isLetter }) {
            throw SourceConfigurationError(
                .unsupportedScheme,
                "\(text): unknown kind of source '\(text[..<scheme])' (use gpsd://, nmea:, serial:, tcp://, barometer:, ip:, wifi:, geoclue:, modem: or stdin)"
            )
        }
        throw SourceConfigurationError(
            .invalidURL,
            "\(text): not a source URL (use gpsd://host:port, nmea:/file, serial:/dev/tty…, tcp://host:port or stdin)"
        )
    }

    /// `/path?key=value&…`, a leading `//` dropped; the path must not be empty.
    private static func pathAndOptions(
        _ text: String, url: String, what: String
    ) throws -> (String, [(String, String)]) {
        let rest = text.strip(prefix: "//") ?? text
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        guard !path.isEmpty else { throw SourceConfigurationError(.invalidURL, "\(url): \(what) is required") }
        var options: [(String, String)] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard keyValue.count == 2 else {
                    throw SourceConfigurationError(.invalidURL, "\(url): option '\(pair)' is not key=value")
                }
                options.append((keyValue[0], keyValue[1]))
            }
        }
        return (path, options)
    }

    private static func hostPort(_ text: String, defaultPort: UInt16?, url: String) throws -> (String, UInt16) {
        var rest = Substring(text)
        if rest.hasSuffix("/") { rest.removeLast() }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw SourceConfigurationError(.invalidURL, "\(url): unbalanced '[' in the host")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw SourceConfigurationError(.invalidURL, "\(url): unexpected text after the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        let port: UInt16
        if let portText {
            guard let value = UInt16(portText), value > 0 else {
                throw SourceConfigurationError(.invalidPort, "\(url): the port must be 1…65535")
            }
            port = value
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw SourceConfigurationError(.invalidPort, "\(url): a port is required")
        }
        return (String(host), port)
    }
}

extension String {
    fileprivate func strip(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}

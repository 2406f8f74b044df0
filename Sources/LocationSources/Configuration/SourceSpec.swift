import Foundation

/// A source named by URL, on the command line (`--source`) or in `sources.conf`.
///
/// | URL                              | Source                                           |
/// |----------------------------------|--------------------------------------------------|
/// | `gpsd://host:port`, `gpsd://`    | gpsd's JSON protocol (default 127.0.0.1:2947)    |
/// | `nmea:/path/file.nmea`           | an NMEA 0183 log, replayed                        |
/// | `serial:/dev/ttyUSB0?baud=9600`  | an NMEA receiver on a serial line (baud optional) |
/// | `tcp://host:port`                | an NMEA stream over TCP (phone apps, gpsfeed)     |
/// | `stdin`                          | NMEA on standard input                            |
public enum SourceSpec: Hashable, Sendable, CustomStringConvertible {
    case gpsd(GPSDEndpoint)
    case nmea(NMEAInput)

    /// Where NMEA 0183 sentences come from.
    public enum NMEAInput: Hashable, Sendable {
        case file(path: String)
        /// `baud` nil: detect among the common rates.
        case serial(path: String, baud: Int?)
        case tcp(host: String, port: UInt16)
        case stdin
    }

    public var description: String {
        switch self {
        case .gpsd(let endpoint): endpoint.description
        case .nmea(.file(let path)): "nmea:\(path)"
        case .nmea(.serial(let path, let baud)): "serial:\(path)" + (baud.map { "?baud=\($0)" } ?? "")
        case .nmea(.tcp(let host, let port)): "tcp://\(Self.bracketed(host)):\(port)"
        case .nmea(.stdin): "stdin"
        }
    }

    /// Parses a source URL (surrounding blanks ignored).
    public static func parse(_ text: String) throws -> SourceSpec {
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
            return .nmea(.tcp(host: host, port: port))
        }
        if let rest = text.strip(prefix: "nmea:") {
            let path = rest.strip(prefix: "//") ?? rest
            guard !path.isEmpty else {
                throw SourceConfigurationError(.invalidURL, "\(text): a file path is required")
            }
            return .nmea(.file(path: path))
        }
        if let rest = text.strip(prefix: "serial:") {
            var path = rest.strip(prefix: "//") ?? rest
            var baud: Int?
            if let query = path.firstIndex(of: "?") {
                let parameters = path[path.index(after: query)...]
                path = String(path[..<query])
                for parameter in parameters.split(separator: "&") {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                    guard pair.count == 2, pair[0] == "baud" else {
                        throw SourceConfigurationError(
                            .invalidURL, "\(text): unknown parameter '\(parameter)' (only baud=)")
                    }
                    guard let value = Int(pair[1]), value > 0, value <= 4_000_000 else {
                        throw SourceConfigurationError(
                            .invalidBaudRate, "\(text): baud must be a positive whole number")
                    }
                    baud = value
                }
            }
            guard !path.isEmpty else {
                throw SourceConfigurationError(.invalidURL, "\(text): a device path is required")
            }
            return .nmea(.serial(path: path, baud: baud))
        }
        if let scheme = text.range(of: ":")?.lowerBound, text[..<scheme].allSatisfy({ $0.isLetter }) {
            throw SourceConfigurationError(
                .unsupportedScheme,
                "\(text): unknown kind of source '\(text[..<scheme])' (use gpsd://, nmea:, serial:, tcp:// or stdin)"
            )
        }
        throw SourceConfigurationError(
            .invalidURL,
            "\(text): not a source URL (use gpsd://host:port, nmea:/file, serial:/dev/tty…, tcp://host:port or stdin)"
        )
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

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}

extension String {
    fileprivate func strip(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}

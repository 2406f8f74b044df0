/// Where the gpsd front door listens (`--gpsd-listen`, decision 0077): `127.0.0.1:2947`, `[::1]:2947`, a host
/// without a port (gpsd's 2947), `localhost[:PORT]` (both loopbacks, as gpsd listens by default), or `unix:/path`.
enum GPSDListenAddress: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// gpsd's registered port.
    static let defaultPort = 2947

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) throws(Failure) -> GPSDListenAddress {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst("unix:".count))
            guard path.hasPrefix("/"), path.utf8.count < 108 else {
                throw Failure(
                    description: "--gpsd-listen unix: needs an absolute path under 108 bytes, not \"\(text)\"")
            }
            return .unix(path: path)
        }
        let host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw Failure(description: "--gpsd-listen: no ] in \"\(text)\"")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else {
                    throw Failure(description: "--gpsd-listen: \"\(text)\" is not [HOST]:PORT")
                }
                portText = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else {
                throw Failure(description: "--gpsd-listen: write an IPv6 address in brackets, [\(text)]:PORT")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text)
        }
        let port = portText.map { Int($0) } ?? defaultPort
        guard !host.isEmpty, let port, (1...65_535).contains(port) else {
            throw Failure(description: "--gpsd-listen takes HOST:PORT, [IPV6]:PORT or unix:/PATH, not \"\(text)\"")
        }
        return .tcp(host: String(host), port: port)
    }

    /// The sockets it stands for: `localhost` is 127.0.0.1 and ::1 (a resolver would give one of the two, and
    /// gpsd's clients reach for either), every other address itself.
    var sockets: [GPSDListenAddress] {
        switch self {
        case let .tcp(host, port) where host == "localhost":
            [.tcp(host: "127.0.0.1", port: port), .tcp(host: "::1", port: port)]
        default: [self]
        }
    }

    var description: String {
        switch self {
        case let .tcp(host, port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case let .unix(path): "unix:\(path)"
        }
    }
}

import Foundation

/// Where and how to upload, from `--to`: the URL's scheme names the protocol.
///
/// - `owntracks+http://[user[:password]@]host[:port]/path[?u=USER&d=DEVICE]` (or `owntracks+https`):
///   OwnTracks HTTP mode. Basic auth from the URL's user and password; `X-Limit-U` is `u` (else the
///   URL's user, else "user"), `X-Limit-D` is `d` (else the device name given by the caller).
/// - `osmand+http://host[:port]/[path]?id=DEVICE` (or `osmand+https`): Traccar's OsmAnd protocol;
///   `id` names the device (else the caller's device name).
public struct ReportEndpoint: Sendable, Hashable {
    public enum Wire: String, Sendable, Hashable {
        case ownTracks = "owntracks"
        case osmAnd = "osmand"
    }

    public var wire: Wire
    /// The plain http(s) URL to send to, without credentials.
    public var url: String
    public var user: String?
    public var password: String?
    /// OwnTracks `X-Limit-U`.
    public var limitUser: String
    /// OwnTracks `X-Limit-D`; OsmAnd `id`.
    public var device: String

    public static let schemes = ["owntracks+http", "owntracks+https", "osmand+http", "osmand+https"]

    /// - Throws: `ReportingError.badURL` naming what is wrong and what is accepted.
    public static func parse(_ text: String, device defaultDevice: String = "locationctl") throws -> ReportEndpoint {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw ReportingError(code: .badURL, message: "\"\(text)\" is not a URL")
        }
        guard Self.schemes.contains(scheme) else {
            throw ReportingError(
                code: .badURL,
                message: "unknown URL scheme \"\(scheme)\" in \(text); use one of \(Self.schemes.joined(separator: ", "))")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ReportingError(code: .badURL, message: "\(text) names no host")
        }
        let parts = scheme.split(separator: "+")
        let proto: Wire = parts[0] == "owntracks" ? .ownTracks : .osmAnd
        let query = components.queryItems ?? []
        func item(_ name: String) -> String? { query.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 } }
        var plain = URLComponents()
        plain.scheme = String(parts[1])
        plain.host = host
        plain.port = components.port
        plain.path = components.path.isEmpty ? "/" : components.path
        let kept = query.filter { !["u", "d", "id"].contains($0.name) }
        plain.queryItems = kept.isEmpty ? nil : kept
        guard let url = plain.string else {
            throw ReportingError(code: .badURL, message: "cannot rebuild an http URL from \(text)")
        }
        let user = components.user?.removingPercentEncoding ?? components.user
        return ReportEndpoint(
            wire: proto,
            url: url,
            user: user,
            password: components.password?.removingPercentEncoding ?? components.password,
            limitUser: item("u") ?? user ?? "user",
            device: (proto == .osmAnd ? item("id") : item("d")) ?? defaultDevice
        )
    }

    /// The endpoint with Basic-auth credentials given elsewhere than in the URL (a file only its owner reads, the
    /// environment: issue 37, a URL's password is seen by every user in `ps`). `X-Limit-U` follows the user unless
    /// the URL's `u` named one.
    public func authenticated(user newUser: String, password newPassword: String) -> ReportEndpoint {
        var endpoint = self
        if limitUser == (user ?? "user") { endpoint.limitUser = newUser }
        endpoint.user = newUser
        endpoint.password = newPassword
        return endpoint
    }

    /// The URL as given, with the password hidden (for messages).
    public var redacted: String {
        "\(wire.rawValue)+\(url)" + (user.map { " as \($0)" } ?? "")
    }
}
